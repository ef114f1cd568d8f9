import { bucketState, refilledLevel, validateDelta, validateRequests, type BucketShape, type StoredLevel } from './bucket-math';
import type { BucketRequest, RateLimitStore, TakeResult } from './types';

export interface MemoryRateLimitStoreOptions {
  now?: () => number;
  /** Stored buckets examined for eviction per call (lazy sweep). */
  sweepPerCall?: number;
}

export interface MemoryRateLimitStore extends RateLimitStore {
  /** Buckets currently held (tests, metrics). */
  size(): number;
}

interface Entry extends StoredLevel {
  capacity: number;
  windowMs: number;
}

/**
 * The per-instance store: one Map, synchronous work, O(1) per bucket per call.
 *
 * Memory stays bounded without a timer: a full bucket is the same as no bucket, so it is
 * deleted when a call leaves it full, and every call examines the `sweepPerCall` least
 * recently used entries (the Map's head, since a touched entry is moved to the tail),
 * evicting those that have refilled and rotating the rest (debtors) to the tail. Each call
 * adds at most as many entries as it has buckets and sweeps more than that, so what is held
 * tracks the buckets that are not yet full, plus a small constant.
 */
export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): MemoryRateLimitStore {
  const now = options.now ?? Date.now;
  const sweepPerCall = options.sweepPerCall ?? 4;
  const buckets = new Map<string, Entry>();

  function put(bucket: BucketShape, level: number, at: number): void {
    buckets.delete(bucket.id);
    if (level < bucket.capacity * bucket.windowMs) {
      buckets.set(bucket.id, { level, ts: at, capacity: bucket.capacity, windowMs: bucket.windowMs });
    }
  }

  function sweep(at: number): void {
    for (let index = 0; index < sweepPerCall; index += 1) {
      const head = buckets.entries().next();
      if (head.done === true) return;
      const [id, entry] = head.value;
      buckets.delete(id);
      if (refilledLevel(entry, entry, at) < entry.capacity * entry.windowMs) buckets.set(id, entry);
    }
  }

  function take(requests: BucketRequest[]): TakeResult {
    validateRequests(requests);
    const at = Math.floor(now());
    const levels = requests.map((request) => refilledLevel(buckets.get(request.id), request, at));
    const allowed = requests.every((request, index) => request.cost * request.windowMs <= (levels[index] ?? 0));
    const states = requests.map((request, index) => {
      let level = levels[index] ?? 0;
      if (allowed) {
        level -= request.cost * request.windowMs;
        put(request, level, at);
      }
      return bucketState(level, request, allowed);
    });
    sweep(at);
    return { allowed, buckets: states };
  }

  function adjust(bucket: BucketShape, delta: number): void {
    validateDelta(bucket, delta);
    const at = Math.floor(now());
    const full = bucket.capacity * bucket.windowMs;
    put(bucket, Math.min(full, refilledLevel(buckets.get(bucket.id), bucket, at) + delta * bucket.windowMs), at);
    sweep(at);
  }

  // Validation errors become rejections, like every other store failure.
  return {
    take: async (requests) => take(requests),
    adjust: async (bucket, delta) => adjust(bucket, delta),
    close: async () => {
      buckets.clear();
    },
    size: () => buckets.size,
  };
}
