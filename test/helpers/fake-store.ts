import type {
  KeyDayVisitor,
  ModelUsageRow,
  RequestLogQuery,
  RequestLogRow,
  Store,
  UsageDailyRow,
  UsageEventRow,
} from '../../server/db/types';
import { KeyNumbers } from '../../server/db/key-id-table';
import { splitFemtoUsd } from '../../server/db/rows';
import { parseDay } from '../../server/usage/shanghai-day';
import { compare, FakeAccountStore } from './fake-account-store';

type DailyTotal = Omit<UsageDailyRow, 'costNanoUsd' | 'costFemtoRemainder'> & { costFemtoUsd: bigint };

/**
 * An in-memory Store for tests: the usage and the request log here, the accounts, keys and the
 * rest in FakeAccountStore. `recordUsage` can be told to fail (the next N calls, or
 * until `recover()`), to commit and then fail (`failAfterCommitNext`, a lost COMMIT
 * acknowledgement), to throw synchronously, to be slow (`latencyMs`, real or fake timers)
 * or to hang until released (`pause()`), and it records every call it got. Like the real
 * store it skips events whose `eventId` it already holds.
 */
export class FakeStore extends FakeAccountStore implements Store {
  readonly kind = 'sqlite' as const;

  /** Events written (committed batches), in write order. */
  readonly events: UsageEventRow[] = [];
  /** The request log's records written. */
  readonly requests: RequestLogRow[] = [];
  /** Every batch recordUsage was called with, failed or not. */
  readonly recordUsageCalls: UsageEventRow[][] = [];
  /** Highest number of recordUsage calls running at once. */
  maxConcurrentWrites = 0;
  latencyMs = 0;
  throwSynchronously = false;

  private readonly daily = new Map<string, DailyTotal>();
  private readonly eventIds = new Set<string>();
  private failuresLeft = 0;
  private failuresAfterCommitLeft = 0;
  private down = false;
  private failure: Error = new Error('database is down');
  private activeWrites = 0;
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;

  /** The next `count` recordUsage calls reject (after their latency), writing nothing. */
  failNext(count: number, error = new Error('database is down')): void {
    this.failuresLeft = count;
    this.failure = error;
  }

  /** The next `count` recordUsage calls write their events, then reject as if the acknowledgement was lost. */
  failAfterCommitNext(count: number, error = new Error('Connection terminated unexpectedly')): void {
    this.failuresAfterCommitLeft = count;
    this.failure = error;
  }

  /** Every recordUsage call rejects until `recover()`. */
  goDown(error = new Error('database is down')): void {
    this.down = true;
    this.failure = error;
  }

  recover(): void {
    this.down = false;
    this.failuresLeft = 0;
  }

  /** recordUsage calls wait (before deciding success or failure) until `resume()`. */
  pause(): void {
    if (this.gate !== null) return;
    this.gate = new Promise<void>((resolve) => {
      this.openGate = resolve;
    });
  }

  resume(): void {
    this.openGate?.();
    this.gate = null;
    this.openGate = null;
  }

  get writesInProgress(): number {
    return this.activeWrites;
  }

  recordUsage(events: UsageEventRow[], requests: readonly RequestLogRow[] = []): Promise<void> {
    if (this.throwSynchronously) throw new Error('store threw synchronously');
    this.recordUsageCalls.push(events);
    return this.write(events, requests);
  }

  private async write(events: UsageEventRow[], requests: readonly RequestLogRow[]): Promise<void> {
    this.activeWrites += 1;
    this.maxConcurrentWrites = Math.max(this.maxConcurrentWrites, this.activeWrites);
    try {
      if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
      if (this.gate !== null) await this.gate;
      if (this.down) throw this.failure;
      if (this.failuresLeft > 0) {
        this.failuresLeft -= 1;
        throw this.failure;
      }
      // One transaction: the events, the rollup and the request log's records together, or nothing.
      for (const request of requests) if (!this.requests.some((kept) => kept.id === request.id)) this.requests.push({ ...request });
      for (const event of events) {
        if (this.eventIds.has(event.eventId)) continue;
        this.eventIds.add(event.eventId);
        this.events.push({ ...event });
        const mapKey = `${event.keyId}\u0000${event.day}`;
        const row = this.daily.get(mapKey) ?? {
          keyId: event.keyId,
          accountId: event.accountId,
          day: event.day,
          ...noUsage(),
        };
        addUsage(row, event);
        this.daily.set(mapKey, row);
      }
      if (this.failuresAfterCommitLeft > 0) {
        this.failuresAfterCommitLeft -= 1;
        throw this.failure;
      }
    } finally {
      this.activeWrites -= 1;
    }
  }

  async dailyUsage(accountId: string, startDay: string, endDay: string): Promise<UsageDailyRow[]> {
    return [...this.daily.values()]
      .filter((row) => row.accountId === accountId && row.day >= startDay && row.day <= endDay)
      .sort((left, right) => compare(left.keyId, right.keyId) || compare(left.day, right.day))
      .map(({ costFemtoUsd, ...row }) => ({ ...row, ...splitFemtoUsd(costFemtoUsd) }));
  }

  async keyDayUsage(accountId: string, startDay: string, endDay: string, visit: KeyDayVisitor): Promise<void> {
    const keys = new KeyNumbers();
    for (const row of await this.dailyUsage(accountId, startDay, endDay)) {
      const offset = (parseDay(row.day) ?? 0) - (parseDay(startDay) ?? 0);
      visit(
        row.keyId,
        offset,
        row.requests,
        row.promptTokens,
        row.completionTokens,
        row.costNanoUsd,
        row.costFemtoRemainder,
        keys.numberOf(row.keyId),
      );
    }
  }

  async spendOfDays(scope: { keyId: string } | { accountId: string }, startDay: string, endDay: string | null): Promise<bigint> {
    let spend = 0n;
    for (const row of this.daily.values()) {
      const owner = 'keyId' in scope ? row.keyId === scope.keyId : row.accountId === scope.accountId;
      if (owner && row.day >= startDay && (endDay === null || row.day < endDay)) spend += row.costFemtoUsd;
    }
    return spend;
  }

  async modelUsage(accountId: string, startDay: string, endDay: string): Promise<ModelUsageRow[]> {
    const rows = new Map<string, ModelUsageRow>();
    for (const event of this.events) {
      if (event.accountId !== accountId || event.day < startDay || event.day > endDay) continue;
      const mapKey = `${event.keyId}\u0000${event.model}\u0000${event.deployment ?? ''}`;
      const row = rows.get(mapKey) ?? {
        keyId: event.keyId,
        model: event.model,
        deployment: event.deployment,
        ...noUsage(),
      };
      addUsage(row, event);
      rows.set(mapKey, row);
    }
    return [...rows.values()];
  }

  async countUsageEvents(filter: { accountId?: string } = {}): Promise<number> {
    return this.events.filter((event) => filter.accountId === undefined || event.accountId === filter.accountId).length;
  }

  async listRequests(query: RequestLogQuery): Promise<RequestLogRow[]> {
    const at = (row: RequestLogRow) => row.receivedAt.getTime();
    return this.requests
      .filter(
        (row) =>
          (query.accountId === undefined || row.accountId === query.accountId) &&
          (query.keyId === undefined || row.keyId === query.keyId) &&
          (query.model === undefined || row.model === query.model) &&
          (query.status === undefined || row.status === query.status) &&
          (query.errorCode === undefined || row.errorCode === query.errorCode) &&
          (query.from === undefined || at(row) >= query.from.getTime()) &&
          (query.to === undefined || at(row) < query.to.getTime()) &&
          (query.before === undefined ||
            at(row) < query.before.receivedAt.getTime() ||
            (at(row) === query.before.receivedAt.getTime() && row.id < query.before.id)),
      )
      .sort((a, b) => at(b) - at(a) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0))
      .slice(0, query.limit);
  }

  async getRequest(id: string): Promise<RequestLogRow | null> {
    return this.requests.find((row) => row.id === id) ?? null;
  }

  async pruneRequestLog(before: Date, bodiesBefore: Date): Promise<{ records: number; bodies: number }> {
    const kept = this.requests.filter((row) => row.receivedAt.getTime() >= before.getTime());
    const records = this.requests.length - kept.length;
    let bodies = 0;
    for (const row of kept) {
      if (row.receivedAt.getTime() < bodiesBefore.getTime() && (row.requestBody !== null || row.responseBody !== null)) {
        row.requestBody = null;
        row.responseBody = null;
        bodies += 1;
      }
    }
    this.requests.splice(0, this.requests.length, ...kept);
    return { records, bodies };
  }

  async pruneUsageEvents(before: Date): Promise<number> {
    const kept = this.events.filter((event) => event.receivedAt.getTime() >= before.getTime());
    const pruned = this.events.length - kept.length;
    this.events.splice(0, this.events.length, ...kept);
    this.eventIds.clear();
    for (const event of kept) this.eventIds.add(event.eventId);
    return pruned;
  }

  async ping(): Promise<void> {
    if (this.down) throw this.failure;
  }

  async close(): Promise<void> {}
}

/** Adds one event's counts and cost into a sum row. */
function addUsage(row: Omit<ModelUsageRow, 'keyId' | 'model' | 'deployment'>, event: UsageEventRow): void {
  row.requests += 1;
  row.promptTokens += event.promptTokens;
  row.completionTokens += event.completionTokens;
  row.cachedTokens += event.cachedTokens;
  row.cacheWriteTokens += event.cacheWriteTokens;
  row.cacheWrite1hTokens += event.cacheWrite1hTokens;
  row.reasoningTokens += event.reasoningTokens;
  row.costFemtoUsd += event.costFemtoUsd;
}

/** The sums of a row no event was added to yet. */
function noUsage() {
  return {
    requests: 0,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    costFemtoUsd: 0n,
  };
}
