import { setTimeout as delay } from 'node:timers/promises';
import { UpstreamError } from '../errors/gateway-error';
import { throwIfAborted, type CallSignal } from './call-signal';
import { isAbortError } from './http-client';

export interface RetryOptions {
  /** Extra calls to the same target after its first failure (config `upstream.max_retries`). */
  maxRetries: number;
  /** First backoff ceiling; doubles per retry (config `upstream.retry_base_delay_ms`). */
  baseDelayMs: number;
  /** Stops everything: no further call, no wait; the AbortError is rethrown. */
  signal: CallSignal;
  /** Upper bound of the exponential backoff. Default 8 s. */
  maxDelayMs?: number;
  /** The longest upstream `retry-after` worth waiting for; a longer one moves on to the next target. Default 20 s. */
  maxRetryAfterMs?: number;
  /** Called before each call to a target (retries and fallbacks included). */
  onAttempt?: () => void;
  /** Injected for tests: [0, 1). */
  random?: () => number;
  /** Injected for tests; must reject with an AbortError when `signal` aborts. */
  sleep?: (ms: number, signal: CallSignal) => Promise<void>;
}

export interface FallbackResult<A, T> {
  value: T;
  /** The target that answered. */
  attempt: A;
  /** Calls made in all, the successful one included. */
  attempts: number;
}

const DEFAULT_MAX_DELAY_MS = 8_000;
const DEFAULT_MAX_RETRY_AFTER_MS = 20_000;

/**
 * The retry and fallback loop of the routes. `targets` is the requested model then its
 * `fallbacks` in order (docs/configuration.md). Per target, a retryable UpstreamError (connect
 * error, 429, 5xx, timeout, garbage) is retried up to `maxRetries` times with full-jitter
 * exponential backoff (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/),
 * waiting the upstream's `retry-after` instead when it sent one, as openai-node does; then the
 * next target is tried. A `rejected` error is the caller's fault and would fail everywhere: it
 * is thrown at once. A non-retryable error of another kind (the provider refused our
 * credentials) is not retried on the same target but may succeed on the next one. Anything that
 * is not an UpstreamError is a bug and is thrown at once. When every target failed, the last
 * error is thrown. Streams go through the same loop: `chatStream` resolves only after a 2xx.
 */
export async function callWithFallbacks<A, T>(
  targets: readonly A[],
  run: (attempt: A, signal: CallSignal) => Promise<T>,
  options: RetryOptions,
): Promise<FallbackResult<A, T>> {
  const { signal } = options;
  const sleep = options.sleep ?? ((ms: number, sleepSignal: CallSignal) => delay(ms, undefined, { signal: sleepSignal as AbortSignal }));
  const random = options.random ?? Math.random;
  if (targets.length === 0) throw new Error('callWithFallbacks needs at least one target.');

  let lastError: UpstreamError | null = null;
  let calls = 0;
  for (const target of targets) {
    for (let retry = 0; ; retry++) {
      throwIfAborted(signal);
      calls++;
      options.onAttempt?.();
      try {
        return { value: await run(target, signal), attempt: target, attempts: calls };
      } catch (error) {
        if (isAbortError(error)) throw error;
        throwIfAborted(signal);
        if (!(error instanceof UpstreamError) || error.kind === 'rejected') throw error;
        lastError = error;
        if (!error.retryable || retry >= options.maxRetries) break;
        const wait = backoffMs(retry, error.retryAfterMs, options, random);
        if (wait === null) break;
        await sleep(wait, signal);
      }
    }
  }
  throw lastError ?? new Error('callWithFallbacks ended without a result.');
}

/** The wait before retry number `retry + 1`, or null when the upstream asks for longer than we wait. */
export function backoffMs(retry: number, retryAfterMs: number | null, options: RetryOptions, random: () => number): number | null {
  if (retryAfterMs !== null) {
    return retryAfterMs <= (options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS) ? retryAfterMs : null;
  }
  const ceiling = Math.min(options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS, options.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}
