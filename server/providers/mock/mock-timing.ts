import { setTimeout as delay } from 'node:timers/promises';
import { throwIfAborted, type CallSignal } from '../call-signal';

/** Waits `ms` (not at all for 0, so load tests pay nothing); rejects with an AbortError on abort. */
export async function mockWait(ms: number, signal: CallSignal): Promise<void> {
  throwIfAborted(signal);
  if (ms > 0) await delay(ms, undefined, { signal: signal as AbortSignal });
}
