import { GatewayError } from '../errors/gateway-error';
import { CallDeadlines } from './call-deadlines';

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

  const deadlines = new CallDeadlines(timeoutMs);

  /** Whether this call should go to the shared store; claims the probe slot while down. */
  function shouldTryPrimary(): boolean {
    if (state === 'ok') return true;
    if (probing || now() - lastProbeAt < probeIntervalMs) return false;
    probing = true;
    lastProbeAt = now();
    return true;
  }

  /** While down: the policy's 503, or the fallback's answer. */
  function whenDown<T>(failure: unknown, fallback: () => Promise<T>): Promise<T> {
    if (policy === 'closed') return Promise.reject(rateLimiterUnavailable(failure));
    try {
      return fallback();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * One promise and one watched deadline per call, not an async function, a timer and a race
   * (docs/performance.md, "Speed tricks in the code"): the first of the answer, the failure
   * and the timeout decides; what comes after it is ignored (a late answer of a call that
   * timed out stands in Redis, see above).
   */
  function run<T>(primary: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    if (!shouldTryPrimary()) return whenDown(undefined, fallback);
    const isProbe = state === 'down';
    return new Promise<T>((resolve, reject) => {
      let decided = false;
      const onAnswer = (result: T): void => {
        deadlines.answered(watched);
        if (decided) return;
        decided = true;
        if (isProbe) probing = false;
        setState('ok');
        resolve(result);
      };
      const onFailure = (error: unknown): void => {
        deadlines.answered(watched);
        if (decided) return;
        decided = true;
        if (isProbe) probing = false;
        // A programming error (a malformed request) is not an outage.
        if (error instanceof RangeError) return reject(error);
        if (state === 'ok') lastProbeAt = now();
        setState('down', error);
        resolve(whenDown(error, fallback));
      };
      const watched = deadlines.watch(() => onFailure(new SharedStoreTimeoutError(timeoutMs)));
      let answer: Promise<T>;
      try {
        answer = primary();
      } catch (error) {
        answer = Promise.reject(error);
      }
      answer.then(onAnswer, onFailure);
    });
  }

  return { run, status: () => state };
}
