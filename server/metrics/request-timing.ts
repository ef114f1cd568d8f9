import type { Response } from 'express';
import { performance } from 'node:perf_hooks';

/**
 * Per-request timing kept in `response.locals.timing` by the access-log middleware: when the
 * request arrived and how long it waited for the upstream. The gateway's own overhead is
 * the difference (`x-gateway-overhead-ms`). Monotonic clock: durations, never dates.
 */
export interface RequestTiming {
  startedAt: number;
  /** Time inside the upstream calls of this request, retries and their backoff included. */
  upstreamMs: number;
  /** The gateway's own time until the response headers, once they are sent (`x-gateway-overhead-ms`). */
  overheadMs: number | null;
}

export const monotonicNow = (): number => performance.now();

export function startTiming(response: Response): RequestTiming {
  const timing: RequestTiming = { startedAt: monotonicNow(), upstreamMs: 0, overheadMs: null };
  response.locals.timing = timing;
  return timing;
}

/** Awaits `call`, counting its duration as time spent waiting for the upstream. */
export async function timeUpstream<T>(response: Response, call: () => Promise<T>): Promise<T> {
  const startedAt = monotonicNow();
  try {
    return await call();
  } finally {
    const timing = response.locals.timing as RequestTiming | undefined;
    if (timing) timing.upstreamMs += monotonicNow() - startedAt;
  }
}
