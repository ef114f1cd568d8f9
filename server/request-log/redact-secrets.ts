/**
 * docs/request-log.md: what is never stored in a kept body. Headers are not kept at all; in a
 * body, anything shaped like a key (an `sk-…` token, a bearer credential) and the value of a
 * JSON field named like a credential are replaced by REDACTED before the body is cut to its cap.
 */
export const REDACTED = '[redacted]';

/** `sk-` keys (the gateway's and OpenAI's and Anthropic's), and any `Bearer <token>`. */
const KEY_SHAPED = /\b(?:sk-[A-Za-z0-9_-]{8,}|Bearer\s+[A-Za-z0-9._~+/=-]{8,})/g;
/**
 * A JSON string field named like a credential: "authorization", "x-api-key", "api_key", "apiKey",
 * "password", "secret", "access_token" and the other `…_token`s of OAuth and the clouds. A bare
 * "token" is not one: it is the text of a token in logprobs.
 */
const CREDENTIAL_FIELD =
  /("(?:authorization|x-api-key|api[_-]?key|password|secret|(?:access|refresh|id|auth|session|security|bearer|api|subject)[_-]?token)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;

export function redactSecrets(text: string): string {
  return text.replace(CREDENTIAL_FIELD, `$1"${REDACTED}"`).replace(KEY_SHAPED, REDACTED);
}

/** `text` cut to at most `maxBytes` bytes of UTF-8, never inside a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  const cut = Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  // A character split at the cut decodes to U+FFFD: drop it.
  return cut.endsWith('\uFFFD') ? cut.slice(0, -1) : cut;
}

/** A body as kept: secrets redacted first (a cut must not leave half a key), then cut. */
export function keptBody(text: string | null, maxBytes: number): string | null {
  return text === null ? null : cutToBytes(redactSecrets(text), maxBytes);
}
