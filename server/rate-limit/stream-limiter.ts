/**
 * At most `maxPerKey` streamed completions open at once per API key, per gateway instance
 * (config `limits.max_streams_per_key`). A stream holds a socket, an upstream connection and
 * buffers for as long as the client keeps reading, so one key must not be able to hold all
 * of them; rpm/tpm do not bound this, a slow reader does not spend tokens. Kept in memory:
 * it guards this process's resources, so it is per instance by design (with N instances a
 * key may hold N x the limit in all).
 */
export interface StreamLimiter {
  /** A release function (idempotent), or null when the key is at its limit. */
  acquire(keyId: string): (() => void) | null;
  /** Open streams across every key (metrics). */
  active(): number;
  readonly maxPerKey: number;
}

export function createStreamLimiter(maxPerKey: number): StreamLimiter {
  const open = new Map<string, number>();
  let total = 0;
  return {
    maxPerKey,
    acquire(keyId) {
      const current = open.get(keyId) ?? 0;
      if (current >= maxPerKey) return null;
      open.set(keyId, current + 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= 1;
        const left = (open.get(keyId) ?? 1) - 1;
        if (left <= 0) open.delete(keyId);
        else open.set(keyId, left);
      };
    },
    active: () => total,
  };
}
