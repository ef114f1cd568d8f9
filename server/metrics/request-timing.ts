import { performance } from 'node:perf_hooks';

/** Monotonic clock (ms): durations, never dates. */
export const monotonicNow = (): number => performance.now();

/** What counts upstream time: the request context (pipeline/request-context.ts). */
export interface UpstreamTimer {
  upstreamMs: number;
}

/**
 * Awaits `call`, counting its duration as time spent waiting for the upstream: the
 * gateway's own overhead (`x-gateway-overhead-ms`) is the total minus this.
 */
export async function timeUpstream<T>(timer: UpstreamTimer, call: () => Promise<T>): Promise<T> {
  const startedAt = monotonicNow();
  try {
    return await call();
  } finally {
    timer.upstreamMs += monotonicNow() - startedAt;
  }
}
