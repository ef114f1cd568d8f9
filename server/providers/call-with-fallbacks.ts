import { setTimeout as delay } from 'node:timers/promises';
import { UpstreamError } from '../errors/gateway-error';
import { throwIfAborted, type CallSignal } from './call-signal';
import { isAbortError } from './transport-errors';

export interface RetryOptions<A = unknown> {
  /** Extra calls to the same model after its first failure (config `upstream.max_retries`). */
  maxRetries: number;
  /** First backoff ceiling; doubles per retry (config `upstream.retry_base_delay_ms`). */
  baseDelayMs: number;
  /** Stops everything: no further call, no wait; the AbortError is rethrown. */
  signal: CallSignal;
  /** Upper bound of the exponential backoff. Default 8 s. */
  maxDelayMs?: number;
  /** The longest upstream `retry-after` worth waiting for; a longer one moves on to the next target. Default 20 s. */
  maxRetryAfterMs?: number;
  /**
   * Targets of one model (its deployments, docs/routing.md) share a key: consecutive targets
   * with the same key are one model's, tried in turn. Absent: every target is its own model.
   */
  groupOf?: (target: A) => unknown;
  /** Called before each call to a target (retries and fallbacks included). */
  onAttempt?: (target: A) => void;
  /** A call to a target failed, however (the caller's errors and aborts included). */
  onFailure?: (target: A, error: unknown) => void;
  /** A target answered. */
  onSuccess?: (target: A) => void;
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

/** A target of the model being tried: its calls so far and its last error. */
interface InRotation<A> {
  target: A;
  calls: number;
  error: UpstreamError | null;
}

/**
 * The retry and fallback loop of the routes. `targets` is the requested model's deployments
 * then its `fallbacks`' (docs/configuration.md, docs/routing.md). A model gets `maxRetries + 1`
 * calls, in turn on its deployments: a retryable UpstreamError (connect error, 429, 5xx,
 * timeout, garbage) moves to the model's next deployment at once, and a deployment called again
 * is waited for with full-jitter exponential backoff
 * (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/), or the upstream's
 * `retry-after` instead when it sent one, as openai-node does (longer than `maxRetryAfterMs`:
 * that deployment is left). Then the next model is tried. A `rejected` error is the caller's
 * fault and would fail everywhere: it is thrown at once. A non-retryable error of another kind
 * (the provider refused our credentials) leaves that deployment but may succeed on the next.
 * Anything that is not an UpstreamError is a bug and is thrown at once. When every target
 * failed, the last error is thrown. Streams go through the same loop: `chatStream` resolves
 * only after a 2xx, so a stream never switches once it has started.
 */
export async function callWithFallbacks<A, T>(
  targets: readonly A[],
  run: (attempt: A, signal: CallSignal) => Promise<T>,
  options: RetryOptions<A>,
): Promise<FallbackResult<A, T>> {
  const { signal, groupOf } = options;
  const sleep = options.sleep ?? ((ms: number, sleepSignal: CallSignal) => delay(ms, undefined, { signal: sleepSignal as AbortSignal }));
  const random = options.random ?? Math.random;
  if (targets.length === 0) throw new Error('callWithFallbacks needs at least one target.');

  let lastError: UpstreamError | null = null;
  let calls = 0;
  for (let start = 0; start < targets.length;) {
    let end = start + 1;
    if (groupOf) {
      const group = groupOf(targets[start] as A);
      while (end < targets.length && groupOf(targets[end] as A) === group) end++;
    }
    const rotation: InRotation<A>[] = [];
    for (let index = start; index < end; index++) rotation.push({ target: targets[index] as A, calls: 0, error: null });
    start = end;
    let next = 0;
    for (let tries = 0; tries <= options.maxRetries && rotation.length > 0;) {
      if (next >= rotation.length) next = 0;
      const entry = rotation[next] as InRotation<A>;
      if (entry.calls > 0) {
        const wait = backoffMs(entry.calls - 1, entry.error?.retryAfterMs ?? null, options, random);
        if (wait === null) {
          rotation.splice(next, 1);
          continue;
        }
        await sleep(wait, signal);
      }
      throwIfAborted(signal);
      tries++;
      calls++;
      entry.calls++;
      options.onAttempt?.(entry.target);
      try {
        const value = await run(entry.target, signal);
        options.onSuccess?.(entry.target);
        return { value, attempt: entry.target, attempts: calls };
      } catch (error) {
        options.onFailure?.(entry.target, error);
        if (isAbortError(error)) throw error;
        throwIfAborted(signal);
        if (!(error instanceof UpstreamError) || error.kind === 'rejected') throw error;
        lastError = error;
        entry.error = error;
        if (error.retryable) next++;
        else rotation.splice(next, 1);
      }
    }
  }
  throw lastError ?? new Error('callWithFallbacks ended without a result.');
}

/** The wait before retry number `retry + 1`, or null when the upstream asks for longer than we wait. */
export function backoffMs(
  retry: number,
  retryAfterMs: number | null,
  options: Pick<RetryOptions, 'maxRetryAfterMs' | 'maxDelayMs' | 'baseDelayMs'>,
  random: () => number,
): number | null {
  if (retryAfterMs !== null) {
    return retryAfterMs <= (options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS) ? retryAfterMs : null;
  }
  const ceiling = Math.min(options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS, options.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}
