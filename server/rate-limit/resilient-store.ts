import {
  createSharedStoreBreaker,
  storeCaller,
  type SharedStoreBreaker,
  type SharedStoreBreakerOptions,
  type SharedStoreStatus,
} from '../redis/shared-store-breaker';
import { createMemoryRateLimitStore } from './memory-store';
import type { RateLimitStore } from './types';

export type RateLimitStoreStatus = SharedStoreStatus;

export type ResilientRateLimitStoreOptions = {
  /** The shared store (Redis). */
  primary: RateLimitStore;
  /** Answers while the primary is down under the `open` policy; default: a memory store. */
  fallback?: RateLimitStore;
  now?: () => number;
} & (
  | {
      /** The breaker of every Redis-backed store of this instance (server/gateway.ts). */
      breaker: SharedStoreBreaker;
    }
  /** A breaker of this store's own. */
  | SharedStoreBreakerOptions
);

export interface ResilientRateLimitStore extends RateLimitStore {
  /** For /readyz. */
  status(): RateLimitStoreStatus;
}

/**
 * The shared rate-limit store behind the circuit breaker of server/redis/shared-store-breaker.ts:
 * while Redis is down, `open` answers from per-instance memory buckets, `closed` with 503
 * rate_limiter_unavailable. Reservations taken from the fallback are settled against whichever
 * store is current at settle time.
 */
export function createResilientRateLimitStore(options: ResilientRateLimitStoreOptions): ResilientRateLimitStore {
  const { primary } = options;
  const breaker = 'breaker' in options ? options.breaker : createSharedStoreBreaker(options);
  const fallback = options.fallback ?? createMemoryRateLimitStore({ now: options.now });
  const run = storeCaller(breaker, primary, fallback);

  return {
    take: (requests) => run((store) => store.take(requests)),
    hit: (windows) => run((store) => store.hit(windows)),
    adjust: (bucket, delta) => run((store) => store.adjust(bucket, delta)),
    status: () => breaker.status(),
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}
