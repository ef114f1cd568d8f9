import { bucketState, refilledLevel, validateDelta, validateRequests, type BucketShape, type StoredLevel } from './bucket-math';
import type { BucketRequest, BucketState, RateLimitStore, TakeResult } from './types';

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
    // One iterator over the keys: an entry moved to the tail is met again only after the
    // others, as when the head was taken afresh each time (plain loops: this runs twice per request).
    const ids = buckets.keys();
    for (let index = 0; index < sweepPerCall; index += 1) {
      const head = ids.next();
      if (head.done === true) return;
      const id = head.value;
      const entry = buckets.get(id) as Entry;
      buckets.delete(id);
      if (refilledLevel(entry, entry, at) < entry.capacity * entry.windowMs) buckets.set(id, entry);
    }
  }

  function take(requests: BucketRequest[]): TakeResult {
    validateRequests(requests);
    const at = Math.floor(now());
    const count = requests.length;
    const levels: number[] = new Array<number>(count);
    let allowed = true;
    for (let index = 0; index < count; index += 1) {
      const request = requests[index] as BucketRequest;
      const level = refilledLevel(buckets.get(request.id), request, at);
      levels[index] = level;
      if (request.cost * request.windowMs > level) allowed = false;
    }
    const states: BucketState[] = new Array<BucketState>(count);
    for (let index = 0; index < count; index += 1) {
      const request = requests[index] as BucketRequest;
      let level = levels[index] as number;
      if (allowed) {
        level -= request.cost * request.windowMs;
        put(request, level, at);
      }
      states[index] = bucketState(level, request, allowed);
    }
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
