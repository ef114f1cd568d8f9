/** One request's usage as the routes report it (issue 3); the recorder stores it (issue 4). */
export interface UsageEvent {
  requestId: string;
  accountId: string;
  keyId: string;
  /** Catalogue id of the model that answered (after a fallback, the fallback's id). */
  model: string;
  provider: string;
  /** When the gateway received the request (ms since epoch): the day it is billed on. */
  receivedAt: number;
  promptTokens: number;
  completionTokens: number;
  /** Exact cost in femto-dollars (1e-15 USD), priced at request time. */
  costFemtoUsd: bigint;
  /** Tokens counted by the gateway because the provider reported none. */
  estimated: boolean;
  stream: boolean;
  /** HTTP status the client got; 499 when the client went away first. */
  status: number;
  errorCode: string | null;
  latencyMs: number;
}

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
