/**
 * The prefix of the Redis keys and channels every instance of a fleet shares: the rate-limit
 * buckets, the budgets' counters and the routing state (docs/rate-limits.md, docs/routing.md).
 * The command line reads the servers' routing state under it too.
 */
export const SHARED_KEY_PREFIX = 'mg:rl:';
