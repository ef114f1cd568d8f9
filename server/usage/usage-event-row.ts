import type { UsageEventRow } from '../db/types';
import { DAY_MS, shanghaiDay } from './shanghai-day';
import type { UsageEvent } from './types';

/** The largest value of the INTEGER columns (Postgres `integer`, Prisma `Int`). */
const INT32_MAX = 2_147_483_647;
const INT64_MAX = 9_223_372_036_854_775_807n;
/** Asia/Shanghai is UTC+8 without DST since 1991; only a guess, checked against shanghaiDay. */
const SHANGHAI_OFFSET_MS = 8 * 3_600_000;

/**
 * Why an event cannot be stored, or null. One bad row would fail its whole batch on every
 * retry and stall the buffer behind it, so bad events are refused before they are queued.
 */
export function invalidUsageEventReason(event: UsageEvent): string | null {
  if (typeof event !== 'object' || event === null) return 'not an object';
  if (
    typeof event.requestId !== 'string' ||
    typeof event.accountId !== 'string' ||
    typeof event.keyId !== 'string' ||
    typeof event.model !== 'string' ||
    typeof event.provider !== 'string'
  ) {
    return 'an id, model or provider is not a string';
  }
  if (!Number.isFinite(event.receivedAt)) return 'receivedAt is not a finite number';
  if (
    !isStorableCount(event.promptTokens) ||
    !isStorableCount(event.completionTokens) ||
    !isStorableCount(event.cachedTokens) ||
    !isStorableCount(event.cacheWriteTokens) ||
    !isStorableCount(event.cacheWrite1hTokens) ||
    !isStorableCount(event.reasoningTokens)
  ) {
    return 'a token count is not a non-negative 32-bit integer';
  }
  if (typeof event.costFemtoUsd !== 'bigint' || event.costFemtoUsd < 0n || event.costFemtoUsd > INT64_MAX) {
    return 'costFemtoUsd is not a non-negative 64-bit bigint';
  }
  if (!Number.isInteger(event.status)) return 'status is not an integer';
  if (typeof event.latencyMs !== 'number' || Number.isNaN(event.latencyMs)) return 'latencyMs is not a number';
  return null;
}

/** Copies the fields (a caller mutating its event later cannot change what is stored). */
export function toUsageEventRow(event: UsageEvent, day: string, eventId: string): UsageEventRow {
  return {
    eventId,
    requestId: event.requestId,
    accountId: event.accountId,
    keyId: event.keyId,
    model: event.model,
    provider: event.provider,
    // Journal lines and stream entries written before the deployment was kept have none.
    deployment: typeof event.deployment === 'string' ? event.deployment : null,
    day,
    receivedAt: new Date(event.receivedAt),
    promptTokens: event.promptTokens,
    completionTokens: event.completionTokens,
    cachedTokens: event.cachedTokens,
    cacheWriteTokens: event.cacheWriteTokens,
    cacheWrite1hTokens: event.cacheWrite1hTokens,
    reasoningTokens: event.reasoningTokens,
    costFemtoUsd: event.costFemtoUsd,
    estimated: event.estimated === true,
    stream: event.stream === true,
    status: event.status,
    errorCode: typeof event.errorCode === 'string' ? event.errorCode : null,
    // Latency is measured with a sub-millisecond clock; the column is an integer, and a
    // skewed or absurd value is not worth losing the billing row over.
    latencyMs: Math.min(INT32_MAX, Math.max(0, Math.round(event.latencyMs))),
  };
}

function isStorableCount(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= INT32_MAX;
}

/**
 * shanghaiDay (Intl formatting) costs microseconds and allocates; the recorder calls it
 * on the request path, so the current day's bounds are cached and most calls compare two numbers.
 */
export class ShanghaiDayCache {
  private start = 0;
  private end = 0;
  private day = '';

  dayOf(instantMs: number): string {
    if (instantMs >= this.start && instantMs < this.end) return this.day;
    const day = shanghaiDay(instantMs);
    const start = Math.floor((instantMs + SHANGHAI_OFFSET_MS) / DAY_MS) * DAY_MS - SHANGHAI_OFFSET_MS;
    const end = start + DAY_MS;
    // The day function is monotonic, so equal days at both ends mean the whole range is that day.
    if (instantMs >= start && instantMs < end && shanghaiDay(start) === day && shanghaiDay(end - 1) === day) {
      this.start = start;
      this.end = end;
      this.day = day;
    }
    return day;
  }
}
