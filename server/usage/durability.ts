import type { UsageEvent, UsageSink } from './types';

/** The status and error code of a call the process died during (docs/usage-durability.md). */
export const INTERRUPTED_STATUS = 499;
export const INTERRUPTED_CODE = 'interrupted';

/**
 * One metered call's usage on its way to durable storage. `finish` hands the event to the
 * recorder and resolves once it would survive the process dying (in the journal's file or in
 * Redis): the code that writes the reply's last bytes waits for it. It rejects when usage
 * cannot be made durable (a full disk, Redis down): the client then gets 503 usage_unavailable.
 */
export interface InFlightUsage {
  readonly eventId: string;
  /** What to bill if the process dies before `finish` (a stream's tokens so far). */
  checkpoint(interrupted: UsageEvent): void;
  finish(event: UsageEvent): Promise<void>;
  /** The call ended without usage (refused by the gateway after it began). */
  cancel(): void;
}

export interface UsageDurability {
  /** False while usage cannot be made durable: model calls are refused with 503 usage_unavailable. */
  available(): boolean;
  /** A call starts; `interrupted` is what to bill if the process dies before it ends. */
  begin(interrupted: UsageEvent): InFlightUsage;
}

const DONE: Promise<void> = Promise.resolve();

/** Without a journal (`usage.durability: memory`): the event goes to the recorder only. */
export function recordOnly(sink: UsageSink): InFlightUsage {
  return {
    eventId: '',
    checkpoint: () => undefined,
    finish(event) {
      sink.record(event);
      return DONE;
    },
    cancel: () => undefined,
  };
}
