import { storeCaller, type SharedStoreBreaker } from '../redis/shared-store-breaker';
import type { BudgetStore } from './budget-store';

/**
 * The shared (Redis) budget counters behind the breaker the rate limits use (one Redis, one
 * state: docs/rate-limits.md, "Several instances: Redis"): while Redis is down, `open` answers
 * from this instance's memory counters (seeded from the ledger; budgets are then per instance),
 * `closed` refuses the model call with 503 rate_limiter_unavailable.
 */
export function withBudgetFallback(primary: BudgetStore, fallback: BudgetStore, breaker: SharedStoreBreaker): BudgetStore {
  const run = storeCaller(breaker, primary, fallback);
  return {
    reserve: (counters) => run((store) => store.reserve(counters)),
    settle: (id, delta, settled) => run((store) => store.settle(id, delta, settled)),
    firstTime: (id, ttlMs) => run((store) => store.firstTime(id, ttlMs)),
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
