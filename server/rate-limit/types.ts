/**
 * The rate-limit store interface (docs/rate-limits.md). Two implementations: the in-memory
 * store (one instance) and the Redis store (limits shared exactly by every instance);
 * `resilient-store.ts` puts the memory store behind the Redis one as a fallback.
 */

/**
 * A token bucket: holds up to `capacity`, refills `capacity` per `windowMs` continuously.
 * `capacity`, `windowMs` and `cost` are non-negative safe integers (`capacity`, `windowMs` > 0).
 * A bucket nobody has touched is full. `capacity` may change between calls (a key's limits
 * are changeable, docs/rate-limits.md): the stored level is simply capped at the new capacity.
 */
export interface BucketRequest {
  id: string;
  capacity: number;
  windowMs: number;
  cost: number;
}

export interface BucketState {
  limit: number;
  /** Whole tokens left after this call; negative while the bucket is in debt (see `adjust`). */
  remaining: number;
  /** ms until the bucket is full again */
  resetMs: number;
  /**
   * ms until `cost` would fit; 0 when it fits now. A `cost` above `capacity` can never fit:
   * the store refuses it and answers `windowMs` (a full window), so a client that obeys
   * `retry-after` does not hammer us, and nothing loops waiting for it.
   */
  retryAfterMs: number;
}

/** `buckets` is in the same order as the requests. */
export interface TakeResult {
  allowed: boolean;
  buckets: BucketState[];
}

/**
 * A sliding window: at most `limit` hits in any `windowMs` (docs/rate-limits.md: the usage
 * route's limits). Unlike a bucket, it never lets a burst through twice in one window.
 * `limit` and `windowMs` are positive safe integers.
 */
export interface WindowRequest {
  id: string;
  limit: number;
  windowMs: number;
}

export interface WindowState {
  limit: number;
  /** Hits left in the window after this call. */
  remaining: number;
  /** ms until one more hit would fit; 0 when it fits now. */
  retryAfterMs: number;
}

/** `windows` is in the same order as the requests. */
export interface HitResult {
  allowed: boolean;
  windows: WindowState[];
}

export interface RateLimitStore {
  /** Atomically records one hit in every window if every window has room; otherwise records nothing. */
  hit(windows: WindowRequest[]): Promise<HitResult>;
  /** Atomically refills every bucket, and takes `cost` from all of them only if all have enough; otherwise takes nothing. */
  take(requests: BucketRequest[]): Promise<TakeResult>;
  /** Adds `delta` (positive = refund, capped at capacity; negative = charge more, may go below zero = debt) */
  adjust(bucket: Omit<BucketRequest, 'cost'>, delta: number): Promise<void>;
  /** Releases what the store owns (never a client that was passed in). */
  close(): Promise<void>;
}
