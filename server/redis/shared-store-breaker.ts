import { GatewayError } from '../errors/gateway-error';

/** `limits.redis_failure` (docs/rate-limits.md, "Several instances: Redis"). */
export type SharedStoreFailurePolicy = 'open' | 'closed';
export type SharedStoreStatus = 'ok' | 'down';

export interface SharedStoreBreakerOptions {
  /**
   * `open`: calls are answered by their fallback (this instance's memory) while the shared
   * store is down; `closed`: 503 rate_limiter_unavailable.
   */
  policy: SharedStoreFailurePolicy;
  /** A call to the shared store slower than this counts as a failure. */
  timeoutMs?: number;
  /** While down, at most one call per this interval is tried against the shared store. */
  probeIntervalMs?: number;
  now?: () => number;
  onStateChange?: (state: SharedStoreStatus, error?: unknown) => void;
}

export interface SharedStoreBreaker {
  /** `primary` while the shared store is up (with the timeout), else `fallback` or the 503 of the policy. */
  run<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T>;
  /** For /readyz and gateway_redis_up. */
  status(): SharedStoreStatus;
}

/** Calls on a store through the breaker: on `primary` while Redis is up, else on `fallback` (or the policy's 503). */
export function storeCaller<Store>(
  breaker: SharedStoreBreaker,
  primary: Store,
  fallback: Store,
): <T>(call: (store: Store) => Promise<T>) => Promise<T> {
  return (call) =>
    breaker.run(
      () => call(primary),
      () => call(fallback),
    );
}

class SharedStoreTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`the shared store (Redis) did not answer within ${timeoutMs} ms`);
    this.name = 'SharedStoreTimeoutError';
  }
}

export const rateLimiterUnavailable = (cause?: unknown): GatewayError =>
  new GatewayError(503, 'server_error', 'rate_limiter_unavailable', 'The rate limiter is unavailable; please retry shortly.', { cause });

/**
 * One circuit breaker for everything kept in Redis: the rate-limit buckets and the spend-budget
 * counters (docs/rate-limits.md, "Several instances: Redis"). One Redis, one state: whichever
 * store sees it fail, both stop calling it. While it is up every call goes to it (with a
 * timeout). The first failure or timeout flips to `down`; from then on calls are answered at
 * once by the policy, and at most one call per `probeIntervalMs`, from either store, is tried
 * against Redis: when one succeeds, it is `ok` again. So a hung Redis costs one timeout per
 * probe interval, not one per request.
 *
 * A call that timed out may still have been applied by Redis afterwards; that charge stands
 * (it errs on the side of limiting).
 */
export function createSharedStoreBreaker(options: SharedStoreBreakerOptions): SharedStoreBreaker {
  const { policy } = options;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 250;
  const probeIntervalMs = options.probeIntervalMs ?? 1_000;
  let state: SharedStoreStatus = 'ok';
  let lastProbeAt = Number.NEGATIVE_INFINITY;
  let probing = false;

  function setState(next: SharedStoreStatus, error?: unknown): void {
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
      timer = setTimeout(() => setImmediate(() => reject(new SharedStoreTimeoutError(timeoutMs))), timeoutMs);
      timer.unref();
    });
    // A late rejection after the timeout must not become an unhandled rejection.
    promise.catch(() => undefined);
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  /** Whether this call should go to the shared store; claims the probe slot while down. */
  function shouldTryPrimary(): boolean {
    if (state === 'ok') return true;
    if (probing || now() - lastProbeAt < probeIntervalMs) return false;
    probing = true;
    lastProbeAt = now();
    return true;
  }

  async function run<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    let failure: unknown;
    if (shouldTryPrimary()) {
      const isProbe = state === 'down';
      try {
        const result = await withTimeout(primary());
        setState('ok');
        return result;
      } catch (error) {
        // A programming error (a malformed request) is not an outage.
        if (error instanceof RangeError) throw error;
        failure = error;
        if (state === 'ok') lastProbeAt = now();
        setState('down', error);
      } finally {
        if (isProbe) probing = false;
      }
    }
    if (policy === 'closed') throw rateLimiterUnavailable(failure);
    return fallback();
  }

  return { run, status: () => state };
}
