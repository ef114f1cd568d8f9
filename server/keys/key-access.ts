import { authenticationError, permissionError, type GatewayError } from '../errors/gateway-error';
import type { Limits } from '../rate-limit/key-limiter';
import type { CachedApiKey } from './key-cache';

/**
 * Whether a known `sk-` key may call a model route now (docs/keys-and-accounts.md,
 * docs/operator-controls.md): revoked or a rotated-out secret past its grace -> 401
 * `invalid_api_key`; past `expires_at` -> 401 `key_expired`; blocked -> 403 `key_blocked`.
 * Decided from the cached key and the clock alone, so every instance refuses at the same moment.
 */
export function apiKeyRefusal(key: CachedApiKey, now: number): GatewayError | null {
  if (key.status === 'REVOKED') return authenticationError('invalid_api_key', 'This API key has been revoked.');
  if (key.graceEndsAt !== null && now >= key.graceEndsAt) {
    return authenticationError(
      'invalid_api_key',
      'This secret was replaced by a rotation and its grace period is over; use the new secret.',
    );
  }
  if (key.expiresAt !== null && now >= key.expiresAt) return authenticationError('key_expired', 'This API key has expired.');
  if (key.blocked) return permissionError('key_blocked', 'This API key is blocked.');
  return null;
}

/**
 * A key's limits on the request path: its own (or the configured default) capped by its
 * account's ceilings, which the operator may lower below a key's value at any time.
 */
export function effectiveLimits(
  key: Pick<CachedApiKey, 'rpm' | 'tpm' | 'accountRpm' | 'accountTpm'>,
  defaults: { defaultRpm: number; defaultTpm: number },
): Limits {
  const rpm = key.rpm ?? defaults.defaultRpm;
  const tpm = key.tpm ?? defaults.defaultTpm;
  return {
    rpm: key.accountRpm === null ? rpm : Math.min(rpm, key.accountRpm),
    tpm: key.accountTpm === null ? tpm : Math.min(tpm, key.accountTpm),
  };
}
