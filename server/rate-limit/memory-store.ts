import { bucketState, refilledLevel, validateDelta, validateRequests, type BucketShape, type StoredLevel } from './bucket-math';
import { createMemoryWindows } from './memory-windows';
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
 * deleted when a call leaves it full, and the calls sweep the Map lazily: every
 * SWEEP_EVERY_CALLS calls (or on the first call a second after the last sweep) the entries
 * at the Map's head are examined, `sweepPerCall` for each call since the last sweep (all of
 * them at most), evicting those that have refilled and rotating the rest (debtors, buckets
 * in use) to the tail. Each call adds at most as many entries as it has buckets and pays
 * for sweeping more than that, so what is held tracks the buckets that are not yet full,
 * plus a small constant. Entries are updated in place: a hot key's buckets are not deleted,
 * re-created and rotated on every call (a Map's deletions leave holes it rehashes away).
 */
const SWEEP_EVERY_CALLS = 16;
const SWEEP_AFTER_MS = 1_000;

export function createMemoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): MemoryRateLimitStore {
  const now = options.now ?? Date.now;
  const sweepPerCall = options.sweepPerCall ?? 4;
  const buckets = new Map<string, Entry>();
  const windows = createMemoryWindows(now, sweepPerCall);

  let callsSinceSweep = 0;
  let lastSweepAt = Number.NEGATIVE_INFINITY;

  function put(bucket: BucketShape, level: number, at: number): void {
    const entry = buckets.get(bucket.id);
    if (level >= bucket.capacity * bucket.windowMs) {
      if (entry !== undefined) buckets.delete(bucket.id);
    } else if (entry === undefined) {
      buckets.set(bucket.id, { level, ts: at, capacity: bucket.capacity, windowMs: bucket.windowMs });
    } else {
      entry.level = level;
      entry.ts = at;
      entry.capacity = bucket.capacity;
      entry.windowMs = bucket.windowMs;
    }
  }

  function sweep(at: number): void {
    callsSinceSweep += 1;
    if (callsSinceSweep < SWEEP_EVERY_CALLS && at - lastSweepAt < SWEEP_AFTER_MS) return;
    const count = Math.min(buckets.size, callsSinceSweep * sweepPerCall);
    callsSinceSweep = 0;
    lastSweepAt = at;
    // One iterator over the keys: an entry moved to the tail is met again only after the others.
    const ids = buckets.keys();
    for (let index = 0; index < count; index += 1) {
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
    hit: async (requests) => windows.hit(requests),
    adjust: async (bucket, delta) => adjust(bucket, delta),
    close: async () => {
      buckets.clear();
      windows.clear();
    },
    size: () => buckets.size + windows.size(),
  };
}
