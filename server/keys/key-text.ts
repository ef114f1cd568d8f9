import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type KeyPrefix = 'sk-' | 'uk-';

/** `length` base62 characters from a CSPRNG, without modulo bias (rejection sampling). */
export function randomBase62(length: number): string {
  let result = '';
  while (result.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248) result += BASE62[byte % 62];
      if (result.length === length) break;
    }
  }
  return result;
}

/** docs/keys-and-accounts.md: prefix + 48 characters of base62 from a CSPRNG. */
export function generateKeyText(prefix: KeyPrefix): string {
  return prefix + randomBase62(48);
}

/**
 * Only this hash (SHA-256, hex) is stored; the full key is shown once at creation. It is
 * computed on every request: the one-shot `crypto.hash` costs a third of a Hash object's.
 */
export function hashKey(text: string): string {
  return hash('sha256', text, 'hex');
}

/** docs/keys-and-accounts.md: `sk-...` + the last four characters. */
export function keyHint(text: string): string {
  return `${text.slice(0, 3)}...${text.slice(-4)}`;
}

/** Constant-time comparison of two hex hashes of equal length. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Shape check before any hashing or lookup: cheap rejection of garbage. */
export function looksLikeKey(text: string, prefix: KeyPrefix): boolean {
  return text.length === 51 && text.startsWith(prefix) && /^[0-9A-Za-z]+$/.test(text.slice(3));
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}
