import { describe, expect, it, vi } from 'vitest';
import { UpstreamError } from '../../server/errors/gateway-error';
import { backoffMs, callWithFallbacks, type RetryOptions } from '../../server/providers/call-with-fallbacks';
import type { CallSignal } from '../../server/providers/call-signal';

const unavailable = (retryAfterMs: number | null = null) =>
  new UpstreamError('unavailable', 'The provider "p" is unavailable (HTTP 500).', { retryable: true, upstreamStatus: 500, retryAfterMs });
const timeout = () => new UpstreamError('timeout', 'The provider "p" timed out.', { retryable: true });
const rejected = () =>
  new UpstreamError('rejected', 'The provider "p" rejected the request: bad.', { retryable: false, upstreamStatus: 400 });
const badCredentials = () =>
  new UpstreamError('unavailable', 'The provider "p" refused the gateway\'s credentials.', { retryable: false, upstreamStatus: 401 });

/** Scripted outcomes per target: an Error is thrown, anything else answered. */
function scripted(outcomes: Record<string, (Error | string)[]>) {
  const calls: string[] = [];
  const run = vi.fn(async (target: string) => {
    calls.push(target);
    const next = outcomes[target]?.shift();
    if (next === undefined) throw new Error(`unscripted call to ${target}`);
    if (next instanceof Error) throw next;
    return next;
  });
  return { run, calls };
}

function options(extra: Partial<RetryOptions> = {}): RetryOptions & { waits: number[] } {
  const waits: number[] = [];
  return {
    maxRetries: 2,
    baseDelayMs: 100,
    signal: new AbortController().signal,
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
    },
    waits,
    ...extra,
  };
}

describe('callWithFallbacks', () => {
  it('retries a 500 and returns the answer', async () => {
    const { run, calls } = scripted({ primary: [unavailable(), 'hello'] });
    const settings = options();
    await expect(callWithFallbacks(['primary', 'backup'], run, settings)).resolves.toEqual({
      value: 'hello',
      attempt: 'primary',
      attempts: 2,
    });
    expect(calls).toEqual(['primary', 'primary']);
    expect(settings.waits).toEqual([50]);
  });

  it('falls back to the next model once the retries are spent', async () => {
    const { run, calls } = scripted({ primary: [unavailable(), timeout(), unavailable()], backup: ['from backup'] });
    const settings = options();
    await expect(callWithFallbacks(['primary', 'backup'], run, settings)).resolves.toEqual({
      value: 'from backup',
      attempt: 'backup',
      attempts: 4,
    });
    expect(calls).toEqual(['primary', 'primary', 'primary', 'backup']);
    // Full jitter over 100, 200 ms; no wait before the fallback.
    expect(settings.waits).toEqual([50, 100]);
  });

  it('retries timeouts and throws the last error when every target failed', async () => {
    const last = timeout();
    const { run, calls } = scripted({ primary: [timeout(), timeout()], backup: [unavailable(), last] });
    await expect(callWithFallbacks(['primary', 'backup'], run, options({ maxRetries: 1 }))).rejects.toBe(last);
    expect(calls).toEqual(['primary', 'primary', 'backup', 'backup']);
  });

  it('does not retry or fall back on a rejected request', async () => {
    const error = rejected();
    const { run, calls } = scripted({ primary: [error], backup: ['never'] });
    await expect(callWithFallbacks(['primary', 'backup'], run, options())).rejects.toBe(error);
    expect(calls).toEqual(['primary']);
  });

  it('moves to the fallback at once when the provider refuses our credentials', async () => {
    const { run, calls } = scripted({ primary: [badCredentials()], backup: ['ok'] });
    await expect(callWithFallbacks(['primary', 'backup'], run, options())).resolves.toMatchObject({ value: 'ok', attempts: 2 });
    expect(calls).toEqual(['primary', 'backup']);
  });

  it('throws errors that are not upstream errors at once', async () => {
    const bug = new TypeError('bug');
    const { run, calls } = scripted({ primary: [bug] });
    await expect(callWithFallbacks(['primary', 'backup'], run, options())).rejects.toBe(bug);
    expect(calls).toEqual(['primary']);
  });

  it('waits the retry-after the upstream asked for, and skips a target that asks for too long', async () => {
    const { run, calls } = scripted({ primary: [unavailable(1_500), unavailable(60_000)], backup: ['ok'] });
    const settings = options();
    await expect(callWithFallbacks(['primary', 'backup'], run, settings)).resolves.toMatchObject({ attempt: 'backup' });
    expect(settings.waits).toEqual([1_500]);
    expect(calls).toEqual(['primary', 'primary', 'backup']);
  });

  it('stops at once on abort, also during the backoff, with the AbortError', async () => {
    const controller = new AbortController();
    const { run, calls } = scripted({ primary: [unavailable(), 'late'], backup: ['never'] });
    const pending = callWithFallbacks(['primary', 'backup'], run, {
      maxRetries: 2,
      baseDelayMs: 10_000,
      random: () => 0.99,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toEqual(['primary']);
  });

  it('rethrows the abort error of the call and tries nothing else', async () => {
    const controller = new AbortController();
    const run = vi.fn(async () => {
      controller.abort();
      throw new DOMException('This operation was aborted', 'AbortError');
    });
    await expect(callWithFallbacks(['primary', 'backup'], run, options({ signal: controller.signal }))).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('does not call at all with an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const { run, calls } = scripted({ primary: ['never'] });
    await expect(callWithFallbacks(['primary'], run, options({ signal: controller.signal }))).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toEqual([]);
  });

  it('passes the signal to each call', async () => {
    const settings = options();
    const run = vi.fn(async (_target: string, signal: CallSignal) => signal);
    await expect(callWithFallbacks(['primary'], run, settings)).resolves.toMatchObject({ value: settings.signal });
  });

  it('grows the backoff ceiling exponentially up to maxDelayMs', () => {
    const settings = options({ maxDelayMs: 1_000 });
    const top = () => 0.999999;
    expect([0, 1, 2, 3, 4].map((retry) => backoffMs(retry, null, settings, top))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffMs(3, null, settings, () => 0)).toBe(0);
  });
});
