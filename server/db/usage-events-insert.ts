import type { Dialect } from './migration-files';
import type { UsageEventRow } from './types';

/** The token counts, named alike in usage_events and usage_daily (the rollup sums them). */
export const TOKEN_COLUMNS = [
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
] as const;

/** usage_events's columns as the writers bind them, in the order of `eventValues`. */
export const EVENT_COLUMNS = [
  'event_id',
  'request_id',
  'account_id',
  'key_id',
  'model',
  'provider',
  'deployment',
  'day',
  'received_at',
  ...TOKEN_COLUMNS,
  'cost_femto_usd',
  'estimated',
  'stream',
  'status',
  'error_code',
  'latency_ms',
] as const;

/**
 * SQLite's INSERT of one usage event, skipping an event whose `event_id` is already stored (a
 * retried batch), so that only the events actually inserted are added into the rollup: the
 * writer reads better-sqlite3's `changes` (0 for a skipped row), as RETURNING costs SQLite
 * more per row (it collects the rows in a temporary table). Parameters as
 * `eventValues` gives them. (Postgres: usage-batch-postgres.ts.)
 *
 * Written through the drivers, not Prisma: even as raw SQL, Prisma's argument conversion,
 * query interpreter and $transaction machinery cost CPU on the event loop for every event,
 * and a whole batch's worth lands in the p99 of every request waiting behind it
 * (docs/performance.md, measurement history).
 */
export const INSERT_EVENT_SQLITE_SQL = sqliteInsertOnce('usage_events', EVENT_COLUMNS, 'event_id');

/** SQLite's INSERT of one row of `columns` into `table`, skipping a row whose `key` is already stored. */
export function sqliteInsertOnce(table: string, columns: readonly string[], key: string): string {
  return `INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(', ')})
      VALUES (${columns.map(() => '?').join(', ')})
      ON CONFLICT ("${key}") DO NOTHING`;
}

/*
 * Values are stored exactly as Prisma stores them, since the rest of the store reads these
 * rows back through the generated client and compares DateTime columns as stored
 * (pruneUsageEvents); test/db/schema-match.test.ts checks it against rows the client wrote.
 */

/**
 * One event's parameters, in EVENT_COLUMNS order, as the Prisma driver adapters bind them.
 * SQLite (@prisma/adapter-better-sqlite3 with `timestampFormat: 'iso8601'`): DateTime as ISO
 * 8601 text with "+00:00" for "Z", Boolean as 0/1, BigInt as a bigint (an exact int64; a
 * number could not hold femto-dollars). Postgres (pg): BigInt as decimal text (exact), DateTime
 * as UTC text, never a Date (see `postgresTimestamp`).
 */
export function eventValues(event: UsageEventRow, dialect: Dialect): unknown[] {
  const sqlite = dialect === 'sqlite';
  return [
    event.eventId,
    event.requestId,
    event.accountId,
    event.keyId,
    event.model,
    event.provider,
    event.deployment,
    event.day,
    sqlite ? sqliteTimestamp(event.receivedAt) : postgresTimestamp(event.receivedAt),
    event.promptTokens,
    event.completionTokens,
    event.cachedTokens,
    event.cacheWriteTokens,
    event.cacheWrite1hTokens,
    event.reasoningTokens,
    sqlite ? event.costFemtoUsd : event.costFemtoUsd.toString(),
    sqlite ? Number(event.estimated) : event.estimated,
    sqlite ? Number(event.stream) : event.stream,
    event.status,
    event.errorCode,
    event.latencyMs,
  ];
}

/** The adapter's iso8601 text: pruneUsageEvents compares `received_at` as text, so every row needs it. */
export function sqliteTimestamp(date: Date): string {
  return isoSecondOf(date) + MILLIS_TEXT[millisOf(date)] + '+00:00';
}

/**
 * `received_at` is TIMESTAMP(3) without time zone holding UTC, as @prisma/adapter-pg writes
 * it (UTC wall-clock text). pg would send a Date as local time with an offset, and Postgres
 * ignores the offset of a timestamp-without-time-zone value: on a server whose TZ is not UTC
 * every event would be stored hours off. ISO text without the "Z" is the UTC wall clock.
 */
export function postgresTimestamp(date: Date): string {
  return isoSecondOf(date) + MILLIS_TEXT[millisOf(date)];
}

/*
 * docs/performance.md, "Speed tricks in the code": a batch's rows (usage events and request
 * log records) were received within a second or so of each other, so the ISO text up to the
 * second ("2026-11-28T15:20:16.") is made once per second and the milliseconds appended from a
 * table; `toISOString` per row cost about as much as the rest of the row's parameters.
 */
const MILLIS_TEXT = Array.from({ length: 1000 }, (_, ms) => String(ms).padStart(3, '0'));
let cachedSecond = Number.NaN;
let cachedSecondText = '';

function millisOf(date: Date): number {
  const ms = date.getTime();
  return ms - Math.floor(ms / 1000) * 1000;
}

/** `toISOString()` up to and with the "." before the milliseconds; throws as it does for an invalid date. */
function isoSecondOf(date: Date): string {
  const ms = date.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    const iso = date.toISOString();
    cachedSecondText = iso.slice(0, -4);
    cachedSecond = second;
  }
  return cachedSecondText;
}
