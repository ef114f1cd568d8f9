import { postgresArrayLiteral, type ColumnValue } from './postgres-array-literal';
import { REQUEST_LOG_COLUMNS, REQUEST_LOG_COLUMN_TYPES, requestValues } from './request-log-insert';
import { EVENT_COLUMNS, eventValues, TOKEN_COLUMNS } from './usage-events-insert';
import type { RequestLogRow, UsageEventRow } from './types';

/**
 * The Postgres type of each of EVENT_COLUMNS (usage-events-insert.ts), in its order: the
 * batch is bound as one array per column and unnested back into rows, so a batch of any size
 * is one statement of a parameter per column (no bound-parameter limit, and one text to prepare).
 */
const EVENT_COLUMN_TYPES: Record<(typeof EVENT_COLUMNS)[number], string> = {
  event_id: 'text',
  request_id: 'text',
  account_id: 'text',
  key_id: 'text',
  model: 'text',
  provider: 'text',
  deployment: 'text',
  day: 'text',
  received_at: 'timestamp(3)',
  prompt_tokens: 'integer',
  completion_tokens: 'integer',
  cached_tokens: 'integer',
  cache_write_tokens: 'integer',
  cache_write_1h_tokens: 'integer',
  reasoning_tokens: 'integer',
  cost_femto_usd: 'bigint',
  estimated: 'boolean',
  stream: 'boolean',
  status: 'integer',
  error_code: 'text',
  latency_ms: 'integer',
};

const quoted = (names: readonly string[]) => names.map((name) => `"${name}"`).join(', ');

/**
 * Store.recordUsage on Postgres in one statement, hence one round trip and its own
 * transaction (docs/performance.md, "Usage writes and the usage report"):
 * 1. `batch`: the events, unnested from the column arrays;
 * 2. `inserted`: INSERT … ON CONFLICT ("event_id") DO NOTHING RETURNING what the rollup needs:
 *    only the events actually inserted, each id once (an event already stored, its batch
 *    committed before but the acknowledgement lost, was counted then);
 * 3. `rollup`: those summed per key and day and upserted into usage_daily, in (key, day) order,
 *    so concurrent batches (several instances) lock the rows they share in the same order
 *    instead of deadlocking. The femto sum is exact (numeric: a key's day may pass int64
 *    femto-dollars, 9,223 USD), split into nano-dollars and a remainder as usage-rollup.ts
 *    splits it, and carried as its upsert carries it;
 * 4. `last_used`: each key's last use moved forward to its newest event of the batch (never
 *    back, docs/operator-controls.md), the key rows locked in id order first, for the same reason;
 * 5. `logged`: the request log's records (docs/request-log.md), unnested from their own column
 *    arrays after the events', a record already stored skipped.
 * Sub-statements of one WITH see the same snapshot: none reads a table another writes.
 */
export const RECORD_USAGE_STATEMENT = {
  name: 'gateway_record_usage',
  text: `WITH "batch" AS (
  SELECT * FROM unnest(${EVENT_COLUMNS.map((column, index) => `$${index + 1}::${EVENT_COLUMN_TYPES[column]}[]`).join(', ')})
    AS "event"(${quoted(EVENT_COLUMNS)})
), "inserted" AS (
  INSERT INTO "usage_events" (${quoted(EVENT_COLUMNS)})
  SELECT ${quoted(EVENT_COLUMNS)} FROM "batch"
  ON CONFLICT ("event_id") DO NOTHING
  RETURNING "key_id", "day", "account_id", ${quoted(TOKEN_COLUMNS)}, "cost_femto_usd"
), "totals" AS (
  SELECT "key_id", "day", "account_id", count(*)::integer AS "requests",
    ${TOKEN_COLUMNS.map((column) => `sum("${column}")::bigint AS "${column}"`).join(', ')},
    sum("cost_femto_usd") AS "cost_femto_usd"
  FROM "inserted" GROUP BY "key_id", "day", "account_id"
), "rollup" AS (
  INSERT INTO "usage_daily" AS "daily" ("key_id", "day", "account_id", "requests", ${quoted(TOKEN_COLUMNS)}, "cost_nano_usd", "cost_femto_remainder")
  SELECT "key_id", "day", "account_id", "requests", ${quoted(TOKEN_COLUMNS)},
    div("cost_femto_usd", 1000000)::bigint, mod("cost_femto_usd", 1000000)::bigint
  FROM "totals" ORDER BY "key_id", "day"
  ON CONFLICT ("key_id", "day") DO UPDATE SET
    "requests" = "daily"."requests" + excluded."requests",
    ${TOKEN_COLUMNS.map((column) => `"${column}" = "daily"."${column}" + excluded."${column}"`).join(',\n    ')},
    "cost_nano_usd" = "daily"."cost_nano_usd" + excluded."cost_nano_usd"
      + ("daily"."cost_femto_remainder" + excluded."cost_femto_remainder") / 1000000,
    "cost_femto_remainder" = ("daily"."cost_femto_remainder" + excluded."cost_femto_remainder") % 1000000
), "last_used" AS (
  UPDATE "api_keys" AS "key" SET "last_used_at" = "moved"."at"
  FROM (
    SELECT "locked"."id", "newest"."at"
    FROM "api_keys" AS "locked"
    JOIN (SELECT "key_id", max("received_at") AS "at" FROM "batch" GROUP BY "key_id") AS "newest" ON "newest"."key_id" = "locked"."id"
    WHERE "locked"."last_used_at" IS NULL OR "locked"."last_used_at" < "newest"."at"
    ORDER BY "locked"."id"
    FOR UPDATE OF "locked"
  ) AS "moved"
  WHERE "key"."id" = "moved"."id" AND ("key"."last_used_at" IS NULL OR "key"."last_used_at" < "moved"."at")
), "logged" AS (
  INSERT INTO "request_log" (${quoted(REQUEST_LOG_COLUMNS)})
  SELECT * FROM unnest(${REQUEST_LOG_COLUMNS.map(
    (column, index) => `$${EVENT_COLUMNS.length + index + 1}::${REQUEST_LOG_COLUMN_TYPES[column]}[]`,
  ).join(', ')})
  ON CONFLICT ("id") DO NOTHING
)
SELECT count(*)::integer AS "inserted" FROM "inserted"`,
};

/**
 * The statement's parameters: one array literal per column (postgres-array-literal.ts, the
 * text pg would make of the array), each event's values as `eventValues` gives them for pg
 * (BigInt as decimal text, `received_at` as UTC wall-clock text), then the request log's
 * columns as `requestValues` gives them.
 */
export function recordUsageValues(events: readonly UsageEventRow[], requests: readonly RequestLogRow[] = []): string[] {
  const columns = EVENT_COLUMNS.map(() => new Array<ColumnValue>(events.length));
  for (let index = 0; index < events.length; index += 1) {
    const event = events[index] as UsageEventRow;
    if (event.costFemtoUsd < 0n) throw new Error(`Usage event ${event.requestId} has a negative cost`);
    const values = eventValues(event, 'postgres') as ColumnValue[];
    for (let column = 0; column < columns.length; column += 1) (columns[column] as ColumnValue[])[index] = values[column];
  }
  const requestColumns = REQUEST_LOG_COLUMNS.map(() => new Array<ColumnValue>(requests.length));
  for (let index = 0; index < requests.length; index += 1) {
    const values = requestValues(requests[index] as RequestLogRow, 'postgres') as ColumnValue[];
    for (let column = 0; column < requestColumns.length; column += 1) (requestColumns[column] as ColumnValue[])[index] = values[column];
  }
  return columns.concat(requestColumns).map(postgresArrayLiteral);
}
