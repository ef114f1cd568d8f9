/**
 * Spend counters of budget windows (docs/operator-controls.md, spend budgets), in exact
 * femto-USD: `total` is the settled spend plus the reservations in flight, `settled` the
 * settled spend alone. A counter nobody touched is absent and is seeded from the ledger by the
 * caller. Two implementations: memory (one instance) and Redis (shared by every instance).
 */
export interface BudgetCounterRequest {
  /** The counter's id: scope, owner, period, when the budget was set, window start. */
  id: string;
  amount: bigint;
  cost: bigint;
  /** The ledger's spend of the window, set only when the counter is absent; undefined = not known yet. */
  seed?: bigint;
  /** How long an untouched counter is kept (past its window's end). */
  ttlMs: number;
}

export type BudgetReserveResult =
  /** A counter is absent and has no seed: the caller seeds it from the ledger and asks again. */
  | { kind: 'unseeded' }
  /** `totals`: each counter after this call (unchanged when refused). */
  | { kind: 'reserved' | 'refused'; totals: bigint[] };

export interface BudgetStore {
  /** Atomically: seeds absent counters, then adds `cost` to every counter if each stays <= its amount, else to none. */
  reserve(counters: BudgetCounterRequest[]): Promise<BudgetReserveResult>;
  /** Adds `delta` (may be negative) to a counter's total and `settled` to its settled spend; answers the settled spend after, or null when the counter is gone. */
  settle(id: string, delta: bigint, settled: bigint): Promise<bigint | null>;
  /** True for the first call per id (an alert threshold's flag), until `ttlMs` passes. */
  firstTime(id: string, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createMemoryBudgetStore(now: () => number = Date.now): BudgetStore {
  const counters = new Map<string, { total: bigint; settled: bigint; expiresAt: number }>();
  const flags = new Map<string, number>();
  const sweep = () => {
    const at = now();
    for (const [id, counter] of counters) if (counter.expiresAt <= at) counters.delete(id);
    for (const [id, expiresAt] of flags) if (expiresAt <= at) flags.delete(id);
  };
  let calls = 0;
  return {
    async reserve(requests) {
      if (++calls % 1000 === 0) sweep();
      for (const request of requests) {
        if (counters.has(request.id)) continue;
        if (request.seed === undefined) return { kind: 'unseeded' };
        counters.set(request.id, { total: request.seed, settled: request.seed, expiresAt: 0 });
      }
      const found = requests.map((request) => counters.get(request.id) as { total: bigint; settled: bigint; expiresAt: number });
      const allowed = requests.every((request, index) => (found[index]?.total ?? 0n) + request.cost <= request.amount);
      requests.forEach((request, index) => {
        const counter = found[index];
        if (counter === undefined) return;
        counter.expiresAt = now() + request.ttlMs;
        if (allowed) counter.total += request.cost;
      });
      return { kind: allowed ? 'reserved' : 'refused', totals: found.map((counter) => counter?.total ?? 0n) };
    },
    async settle(id, delta, settled) {
      const counter = counters.get(id);
      if (counter === undefined) return null;
      counter.total += delta;
      counter.settled += settled;
      return counter.settled;
    },
    async firstTime(id, ttlMs) {
      const until = flags.get(id);
      if (until !== undefined && until > now()) return false;
      flags.set(id, now() + ttlMs);
      return true;
    },
    async close() {
      counters.clear();
      flags.clear();
    },
  };
}
