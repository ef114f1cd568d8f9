import type { UsageEventRow } from '../db/types';

/**
 * One request's usage as the routes report it; the recorder stores it as a `UsageEventRow`
 * (server/db/types.ts, where the fields are declared), giving it its id and billing day.
 */
export type UsageEvent = Omit<UsageEventRow, 'eventId' | 'day' | 'receivedAt' | 'deployment'> & {
  /** When the gateway received the request, in ms since the epoch. */
  receivedAt: number;
  /** The deployment that answered (docs/routing.md); absent or null when none did. */
  deployment?: string | null;
};

/** Where usage events go. `record` never blocks and never throws on the request path. */
export interface UsageSink {
  /** `eventId`: the id the event was journaled under (docs/usage-durability.md); new when absent. */
  record(event: UsageEvent, eventId?: string): void;
}

/** Keeps events in memory: for tests and as the sink before the recorder exists. */
export class MemoryUsageSink implements UsageSink {
  readonly events: UsageEvent[] = [];
  record(event: UsageEvent): void {
    this.events.push(event);
  }
}
