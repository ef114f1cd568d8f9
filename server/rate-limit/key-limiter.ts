import { invalidRequest } from '../errors/gateway-error';
import { formatDuration } from './format-duration';
import type { BucketState, RateLimitStore } from './types';

/** Per minute, docs/rate-limits.md. */
export interface Limits {
  rpm: number;
  tpm: number;
}

/** docs/rate-limits.md: both rpm and tpm (and the usage limits) are per minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface Reservation {
  allowed: boolean;
  /** The headers of docs/rate-limits.md, lower-case names; `retry-after` only when refused. */
  headers: Record<string, string>;
  /** Which limit refused: the one whose capacity returns last when both did. */
  exceeded: 'requests' | 'tokens' | null;
  /** The token estimate alone exceeds the key's tpm: retrying will not help (OpenAI's "Request too large"). */
  tooLarge: boolean;
  keyId: string;
  limits: Limits;
  /** What was taken from the tpm bucket (0 when refused). */
  reservedTokens: number;
  /** Set by the first `settle` (a flag on the reservation: a WeakSet of them cost a hash lookup and GC work per request). */
  settled: boolean;
}

export interface UsageCheck {
  allowed: boolean;
  /** `retry-after` when refused; nothing otherwise (docs/rate-limits.md asks only for that). */
  headers: Record<string, string>;
  which: 'key' | 'ip' | null;
}

export interface KeyLimiter {
  /** Chat/embeddings, per key: one request from the rpm bucket and `tokens` (the estimate) from the tpm bucket, atomically. */
  reserve(keyId: string, limits: Limits, tokens: number): Promise<Reservation>;
  /** After the call: refunds or charges the difference between the reservation and the real usage. Settling twice does nothing. */
  settle(reservation: Reservation, actualTokens: number): Promise<void>;
  /** Usage route: 1 from `usage-key:<id>` (per minute limit) AND 1 from `usage-ip:<ip>`. */
  checkUsage(usageKeyId: string, ip: string, limits: { perKey: number; perIp: number }): Promise<UsageCheck>;
  /**
   * Failed secret checks of one client IP (a wrong admin token, an unknown login link):
   * `failed` charges the attempt; a passed check charges nothing. Either is refused (with
   * `retry-after`) while the IP has used up its `perMinute` failures, so a right guess made
   * then is refused too and tells nothing.
   */
  checkSecretAttempt(ip: string, failed: boolean, perMinute: number): Promise<{ allowed: boolean; headers: Record<string, string> }>;
}

// The limit is part of the bucket id: a key whose limits change (CLI, admin API) starts a
// fresh bucket at its new capacity at once, instead of refilling a drained one at the new rate.
const requestsBucketId = (keyId: string, rpm: number): string => `key:${keyId}:requests:${rpm}`;
const tokensBucketId = (keyId: string, tpm: number): string => `key:${keyId}:tokens:${tpm}`;

/** The request fields a too-large request's 400 names: its prompt and its output limit. */
export interface ReservationFields {
  prompt: string;
  completion: string;
}

/**
 * docs/operator-controls.md, requests that can never pass: a reservation larger than the key's
 * whole tpm capacity would be refused after every wait, so it is a 400 naming what to change
 * (the prompt's field when the prompt alone is too large, else the output limit), never a
 * 429 that clients retry.
 */
export function checkReservationFits(
  tpm: number,
  promptTokens: number,
  completionTokens: number,
  params: ReservationFields = { prompt: 'messages', completion: 'max_tokens' },
): void {
  const prompt = wholeTokens(promptTokens);
  const total = prompt + wholeTokens(completionTokens);
  if (total <= tpm) return;
  const param = prompt > tpm ? params.prompt : params.completion;
  throw invalidRequest(
    'request_too_large',
    `This request may use up to ${total} tokens (about ${prompt} in the prompt + ${total - prompt} of output), more than this key's ` +
      `limit of ${tpm} tokens per minute, so it could never pass. ${param === params.prompt ? 'Shorten the prompt.' : `Lower ${param}.`}`,
    param,
  );
}

/** docs/rate-limits.md: whole seconds, at least 1, from when capacity really returns. */
function retryAfterSeconds(buckets: Pick<BucketState, 'retryAfterMs'>[]): string {
  const longest = Math.max(0, ...buckets.map((bucket) => bucket.retryAfterMs));
  return String(Math.max(1, Math.ceil(longest / 1000)));
}

/** Index of the bucket that refused (largest retryAfterMs, first on a tie), or -1. */
function bindingIndex(buckets: Pick<BucketState, 'retryAfterMs'>[]): number {
  let found = -1;
  buckets.forEach((bucket, index) => {
    if (bucket.retryAfterMs > 0 && (found === -1 || bucket.retryAfterMs > (buckets[found]?.retryAfterMs ?? 0))) found = index;
  });
  return found;
}

/** A token count from an estimate or a provider's usage: a non-negative integer. */
const wholeTokens = (tokens: number): number => (Number.isFinite(tokens) && tokens > 0 ? Math.ceil(tokens) : 0);

/** Keys whose bucket ids are kept (cleared when reached: rebuilding them is cheap). */
const MAX_CACHED_BUCKET_IDS = 10_000;

export function createKeyLimiter(store: RateLimitStore): KeyLimiter {
  // A key's two bucket ids, built once per key and limits rather than twice per request
  // (and, being the same strings each time, their hashes are computed once too).
  const bucketIds = new Map<string, { rpm: number; tpm: number; requests: string; tokens: string }>();
  const idsOf = (keyId: string, limits: Limits) => {
    let ids = bucketIds.get(keyId);
    if (ids === undefined || ids.rpm !== limits.rpm || ids.tpm !== limits.tpm) {
      if (bucketIds.size >= MAX_CACHED_BUCKET_IDS) bucketIds.clear();
      ids = { rpm: limits.rpm, tpm: limits.tpm, requests: requestsBucketId(keyId, limits.rpm), tokens: tokensBucketId(keyId, limits.tpm) };
      bucketIds.set(keyId, ids);
    }
    return ids;
  };

  return {
    async reserve(keyId, limits, tokens) {
      const cost = wholeTokens(tokens);
      const ids = idsOf(keyId, limits);
      const result = await store.take([
        { id: ids.requests, capacity: limits.rpm, windowMs: RATE_LIMIT_WINDOW_MS, cost: 1 },
        // Anything above capacity is refused alike; capping keeps an absurd estimate
        // (max_tokens: 1e308) a safe integer for the store.
        { id: ids.tokens, capacity: limits.tpm, windowMs: RATE_LIMIT_WINDOW_MS, cost: Math.min(cost, limits.tpm + 1) },
      ]);
      const [requests, tokenBucket] = result.buckets;
      if (requests === undefined || tokenBucket === undefined) throw new Error('rate limit: the store answered fewer buckets than asked');
      // docs/rate-limits.md: on every chat/embeddings response, allowed or not; never negative.
      const headers: Record<string, string> = {
        'x-ratelimit-limit-requests': String(limits.rpm),
        'x-ratelimit-remaining-requests': String(Math.max(0, requests.remaining)),
        'x-ratelimit-limit-tokens': String(limits.tpm),
        'x-ratelimit-remaining-tokens': String(Math.max(0, tokenBucket.remaining)),
        'x-ratelimit-reset-requests': formatDuration(requests.resetMs),
        'x-ratelimit-reset-tokens': formatDuration(tokenBucket.resetMs),
      };
      let exceeded: Reservation['exceeded'] = null;
      if (!result.allowed) {
        headers['retry-after'] = retryAfterSeconds(result.buckets);
        exceeded = bindingIndex(result.buckets) === 1 ? 'tokens' : 'requests';
      }
      return {
        allowed: result.allowed,
        headers,
        exceeded,
        tooLarge: cost > limits.tpm,
        keyId,
        limits,
        reservedTokens: result.allowed ? cost : 0,
        settled: false,
      };
    },

    async settle(reservation, actualTokens) {
      if (!reservation.allowed || reservation.settled) return;
      reservation.settled = true;
      // docs/rate-limits.md: reconcile the reservation with the real usage; a refund is capped
      // at capacity, an overrun may put the bucket in debt, delaying the key's next calls.
      const delta = reservation.reservedTokens - wholeTokens(actualTokens);
      if (delta === 0) return;
      await store.adjust(
        { id: idsOf(reservation.keyId, reservation.limits).tokens, capacity: reservation.limits.tpm, windowMs: RATE_LIMIT_WINDOW_MS },
        delta,
      );
    },

    async checkUsage(usageKeyId, ip, limits): Promise<UsageCheck> {
      // docs/rate-limits.md: at most 30 per usage query key and 120 per client IP in ANY 60
      // seconds (sliding windows, not buckets that refill); both must pass.
      const result = await store.hit([
        { id: `usage-key:${usageKeyId}`, limit: limits.perKey, windowMs: RATE_LIMIT_WINDOW_MS },
        { id: `usage-ip:${ip}`, limit: limits.perIp, windowMs: RATE_LIMIT_WINDOW_MS },
      ]);
      if (result.allowed) return { allowed: true, headers: {}, which: null };
      return {
        allowed: false,
        headers: { 'retry-after': retryAfterSeconds(result.windows) },
        which: bindingIndex(result.windows) === 1 ? 'ip' : 'key',
      };
    },

    async checkSecretAttempt(ip, failed, perMinute): Promise<{ allowed: boolean; headers: Record<string, string> }> {
      const result = await store.take([
        { id: `secret-ip:${ip}`, capacity: perMinute, windowMs: RATE_LIMIT_WINDOW_MS, cost: failed ? 1 : 0 },
      ]);
      if (!result.allowed) return { allowed: false, headers: { 'retry-after': retryAfterSeconds(result.buckets) } };
      // A passed check takes nothing, so the store allows it even with no failure left.
      if (failed || (result.buckets[0]?.remaining ?? 0) >= 1) return { allowed: true, headers: {} };
      // No failure left: refused until one has refilled (a window over the capacity).
      return { allowed: false, headers: { 'retry-after': String(Math.max(1, Math.ceil(RATE_LIMIT_WINDOW_MS / perMinute / 1000))) } };
    },
  };
}
