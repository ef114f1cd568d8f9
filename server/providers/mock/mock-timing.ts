import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms` (not at all for 0, so load tests pay nothing); rejects with an AbortError on abort. */
export async function mockWait(ms: number, signal: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  if (ms > 0) await delay(ms, undefined, { signal });
}

/** An AbortError whatever reason the signal carries, as fetch and undici reject. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new DOMException('This operation was aborted', 'AbortError');
}
