import { GatewayError } from '../errors/gateway-error';
import { createMemoryRateLimitStore } from './memory-store';
import type { RateLimitStore } from './types';

export type RateLimitFailurePolicy = 'open' | 'closed';
export type RateLimitStoreStatus = 'ok' | 'down';

export interface ResilientRateLimitStoreOptions {
  /** The shared store (Redis). */
  primary: RateLimitStore;
  /** Answers while the primary is down under the `open` policy; default: a memory store. */
  fallback?: RateLimitStore;
  /**
   * `open`: per-instance limits from the fallback while the primary is down (the gateway
   * keeps serving, limits are no longer shared); `closed`: 503 rate_limiter_unavailable.
   */
  policy: RateLimitFailurePolicy;
  /** A primary call slower than this counts as a failure. */
  timeoutMs?: number;
  /** While down, at most one call per this interval is tried against the primary. */
  probeIntervalMs?: number;
  now?: () => number;
  onStateChange?: (state: RateLimitStoreStatus, error?: unknown) => void;
}

export interface ResilientRateLimitStore extends RateLimitStore {
  /** For /readyz. */
  status(): RateLimitStoreStatus;
}

class PrimaryTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`rate limit store did not answer within ${timeoutMs} ms`);
    this.name = 'PrimaryTimeoutError';
  }
}

export const rateLimiterUnavailable = (cause?: unknown): GatewayError =>
  new GatewayError(503, 'server_error', 'rate_limiter_unavailable', 'The rate limiter is unavailable; please retry shortly.', { cause });

/**
 * A circuit breaker around the shared store. While it is up every call goes to it (with a
 * timeout). The first failure or timeout flips to `down`; from then on calls are answered
 * at once by the policy, and at most one call per `probeIntervalMs` is tried against the
 * primary: when one succeeds, it is `ok` again. So a hung Redis costs one timeout per probe
 * interval, not one per request.
 *
 * A call that timed out may still have been applied by Redis afterwards; that charge
 * stands (it errs on the side of limiting). Reservations taken from the fallback are
 * settled against whichever store is current at settle time.
 */
export function createResilientRateLimitStore(options: ResilientRateLimitStoreOptions): ResilientRateLimitStore {
  const { primary, policy } = options;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 250;
  const probeIntervalMs = options.probeIntervalMs ?? 1_000;
  const fallback = options.fallback ?? createMemoryRateLimitStore({ now });
  let state: RateLimitStoreStatus = 'ok';
  let lastProbeAt = Number.NEGATIVE_INFINITY;
  let probing = false;

  function setState(next: RateLimitStoreStatus, error?: unknown): void {
    if (next === state) return;
    state = next;
    options.onStateChange?.(next, error);
  }

  function withTimeout<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      // The timeout is decided one turn of the event loop later (setImmediate runs after the
      // poll phase): when this process itself was busy past the deadline, an answer that has
      // been waiting on the socket is read first, so a blocked event loop is not mistaken for
      // a Redis outage (which would split the limits per instance for a probe interval).
      timer = setTimeout(() => setImmediate(() => reject(new PrimaryTimeoutError(timeoutMs))), timeoutMs);
      timer.unref();
    });
    // A late rejection after the timeout must not become an unhandled rejection.
    promise.catch(() => undefined);
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  /** Whether this call should go to the primary; claims the probe slot while down. */
  function shouldTryPrimary(): boolean {
    if (state === 'ok') return true;
    if (probing || now() - lastProbeAt < probeIntervalMs) return false;
    probing = true;
    lastProbeAt = now();
    return true;
  }

  async function run<T>(call: (store: RateLimitStore) => Promise<T>): Promise<T> {
    let failure: unknown;
    if (shouldTryPrimary()) {
      const isProbe = state === 'down';
      try {
        const result = await withTimeout(call(primary));
        setState('ok');
        return result;
      } catch (error) {
        // A programming error (bad bucket) is not an outage.
        if (error instanceof RangeError) throw error;
        failure = error;
        if (state === 'ok') lastProbeAt = now();
        setState('down', error);
      } finally {
        if (isProbe) probing = false;
      }
    }
    if (policy === 'closed') throw rateLimiterUnavailable(failure);
    return call(fallback);
  }

  return {
    take: (requests) => run((store) => store.take(requests)),
    hit: (windows) => run((store) => store.hit(windows)),
    adjust: (bucket, delta) => run((store) => store.adjust(bucket, delta)),
    status: () => state,
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
