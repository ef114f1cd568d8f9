import type { RateLimitFailurePolicy } from '../rate-limit/resilient-store';
import { rateLimiterUnavailable } from '../redis/shared-store-breaker';
import type { BudgetStore } from './budget-store';

/**
 * The shared (Redis) budget counters with the rate limits' failure policy (docs/rate-limits.md,
 * `limits.redis_failure`): while a call to Redis fails, `open` answers from this instance's
 * memory counters (seeded from the ledger; budgets are then per instance), `closed` refuses
 * the model call with 503 rate_limiter_unavailable.
 */
export function withBudgetFallback(primary: BudgetStore, fallback: BudgetStore, policy: RateLimitFailurePolicy): BudgetStore {
  const guarded = async <T>(call: (store: BudgetStore) => Promise<T>): Promise<T> => {
    try {
      return await call(primary);
    } catch (error) {
      if (policy === 'closed') throw rateLimiterUnavailable(error);
      return call(fallback);
    }
  };
  return {
    reserve: (counters) => guarded((store) => store.reserve(counters)),
    settle: (id, delta, settled) => guarded((store) => store.settle(id, delta, settled)),
    firstTime: (id, ttlMs) => guarded((store) => store.firstTime(id, ttlMs)),
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
