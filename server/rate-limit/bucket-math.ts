import type { BucketRequest, BucketState } from './types';

/**
 * Token-bucket arithmetic shared by the memory store and (mirrored line by line) the Lua
 * script of the Redis store, so both answer the same.
 *
 * A level is kept in "units" where one token = `windowMs` units; a bucket then refills
 * `capacity` units per millisecond. With integer milliseconds everything stays an integer,
 * exact in a double (and in Lua's numbers) as long as `capacity * windowMs` is a safe
 * integer: no drift, and "N allowed, then the N+1th refused" holds exactly.
 */
export interface StoredLevel {
  /** Units; may be negative (debt, see RateLimitStore.adjust). */
  level: number;
  /** ms timestamp of `level`. */
  ts: number;
}

export type BucketShape = Omit<BucketRequest, 'cost'>;

/** The level at `now`; a bucket with no stored state is full. */
export function refilledLevel(stored: StoredLevel | undefined, bucket: Pick<BucketShape, 'capacity' | 'windowMs'>, now: number): number {
  const full = bucket.capacity * bucket.windowMs;
  if (stored === undefined) return full;
  const elapsed = Math.max(0, now - stored.ts);
  return Math.min(full, stored.level + elapsed * bucket.capacity);
}

/** `level` is the level after the decision (charged when allowed). */
export function bucketState(level: number, request: BucketRequest, allowed: boolean): BucketState {
  const { capacity, windowMs, cost } = request;
  let retryAfterMs = 0;
  if (!allowed) {
    // types.ts: a cost above capacity never fits; answer a full window rather than "never".
    retryAfterMs = cost > capacity ? windowMs : Math.max(0, Math.ceil((cost * windowMs - level) / capacity));
  }
  return {
    limit: capacity,
    remaining: Math.floor(level / windowMs),
    resetMs: Math.max(0, Math.ceil((capacity * windowMs - level) / capacity)),
    retryAfterMs,
  };
}

function assertSafeInteger(value: number, name: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`rate limit: ${name} must be an integer >= ${min}, got ${value}`);
  }
}

export function validateShape(bucket: BucketShape): void {
  if (typeof bucket.id !== 'string' || bucket.id === '') throw new RangeError('rate limit: bucket id must be a non-empty string');
  assertSafeInteger(bucket.capacity, 'capacity', 1);
  assertSafeInteger(bucket.windowMs, 'windowMs', 1);
  if (!Number.isSafeInteger(bucket.capacity * bucket.windowMs)) {
    throw new RangeError(`rate limit: capacity * windowMs must be a safe integer (bucket ${bucket.id})`);
  }
}

export function validateRequests(requests: BucketRequest[]): void {
  for (let index = 0; index < requests.length; index += 1) {
    const request = requests[index] as BucketRequest;
    validateShape(request);
    assertSafeInteger(request.cost, 'cost', 0);
    // One bucket twice in one take would be charged against a stale level (a take has a
    // bucket or two: compared pairwise, no Set per call).
    for (let earlier = 0; earlier < index; earlier += 1) {
      if ((requests[earlier] as BucketRequest).id === request.id)
        throw new RangeError(`rate limit: bucket ${request.id} appears twice in one take`);
    }
  }
}

export function validateDelta(bucket: BucketShape, delta: number): void {
  validateShape(bucket);
  if (!Number.isSafeInteger(delta) || !Number.isSafeInteger(delta * bucket.windowMs)) {
    throw new RangeError(`rate limit: delta must be an integer, got ${delta}`);
  }
}
