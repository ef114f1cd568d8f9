import { FEMTO_PER_NANO } from './rows';
import type { BigintRollupCounts, UsageEventRow } from './types';
import { TOKEN_COLUMNS } from './usage-events-insert';

export interface RollupIncrement extends BigintRollupCounts {
  keyId: string;
  day: string;
  accountId: string;
  requests: number;
}

/**
 * SQLite's rollup increments: a batch's events summed per (keyId, day), so each rollup row is
 * written once per batch, ordered by keyId then day. (Postgres sums them in its batch
 * statement: usage-batch-postgres.ts.)
 */
export function aggregateUsage(events: readonly UsageEventRow[]): RollupIncrement[] {
  const totals = new Map<string, { row: RollupIncrement; costFemtoUsd: bigint }>();
  for (const event of events) {
    if (event.costFemtoUsd < 0n) {
      throw new Error(`Usage event ${event.requestId} has a negative cost`);
    }
    const mapKey = `${event.keyId}\u0000${event.day}`;
    let total = totals.get(mapKey);
    if (total === undefined) {
      total = {
        row: {
          keyId: event.keyId,
          day: event.day,
          accountId: event.accountId,
          requests: 0,
          promptTokens: 0n,
          completionTokens: 0n,
          cachedTokens: 0n,
          cacheWriteTokens: 0n,
          cacheWrite1hTokens: 0n,
          reasoningTokens: 0n,
          costNanoUsd: 0n,
          costFemtoRemainder: 0n,
        },
        costFemtoUsd: 0n,
      };
      totals.set(mapKey, total);
    }
    total.row.requests += 1;
    total.row.promptTokens += BigInt(event.promptTokens);
    total.row.completionTokens += BigInt(event.completionTokens);
    total.row.cachedTokens += BigInt(event.cachedTokens);
    total.row.cacheWriteTokens += BigInt(event.cacheWriteTokens);
    total.row.cacheWrite1hTokens += BigInt(event.cacheWrite1hTokens);
    total.row.reasoningTokens += BigInt(event.reasoningTokens);
    total.costFemtoUsd += event.costFemtoUsd;
  }
  return [...totals.values()]
    .map(({ row, costFemtoUsd }) => ({
      ...row,
      costNanoUsd: costFemtoUsd / FEMTO_PER_NANO,
      costFemtoRemainder: costFemtoUsd % FEMTO_PER_NANO,
    }))
    .sort((a, b) => compareText(a.keyId, b.keyId) || compareText(a.day, b.day));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The rollup's columns, in the order of `rollupValues`. */
const ROLLUP_COLUMNS = ['key_id', 'day', 'account_id', 'requests', ...TOKEN_COLUMNS, 'cost_nano_usd', 'cost_femto_remainder'] as const;

/**
 * SQLite's upsert-increment of one rollup row. The femto remainder is carried into
 * nano-dollars as it goes, so neither int64 column can overflow at realistic spend (int64
 * nano-dollars hold 9.2 billion USD per key per day); usage-batch-postgres.ts carries it the
 * same way.
 */
export const UPSERT_ROLLUP_SQLITE_SQL = `INSERT INTO "usage_daily" AS "daily" (${ROLLUP_COLUMNS.map((column) => `"${column}"`).join(', ')})
      VALUES (${ROLLUP_COLUMNS.map(() => '?').join(', ')})
      ON CONFLICT ("key_id", "day") DO UPDATE SET
        "requests" = "daily"."requests" + excluded."requests",
        "prompt_tokens" = "daily"."prompt_tokens" + excluded."prompt_tokens",
        "completion_tokens" = "daily"."completion_tokens" + excluded."completion_tokens",
        "cached_tokens" = "daily"."cached_tokens" + excluded."cached_tokens",
        "cache_write_tokens" = "daily"."cache_write_tokens" + excluded."cache_write_tokens",
        "cache_write_1h_tokens" = "daily"."cache_write_1h_tokens" + excluded."cache_write_1h_tokens",
        "reasoning_tokens" = "daily"."reasoning_tokens" + excluded."reasoning_tokens",
        "cost_nano_usd" = "daily"."cost_nano_usd" + excluded."cost_nano_usd"
          + ("daily"."cost_femto_remainder" + excluded."cost_femto_remainder") / 1000000,
        "cost_femto_remainder" = ("daily"."cost_femto_remainder" + excluded."cost_femto_remainder") % 1000000`;

/** One rollup row's parameters, in ROLLUP_COLUMNS order; the int64 columns as bigint (better-sqlite3 binds them exactly). */
export function rollupValues(row: RollupIncrement): unknown[] {
  return [
    row.keyId,
    row.day,
    row.accountId,
    row.requests,
    row.promptTokens,
    row.completionTokens,
    row.cachedTokens,
    row.cacheWriteTokens,
    row.cacheWrite1hTokens,
    row.reasoningTokens,
    row.costNanoUsd,
    row.costFemtoRemainder,
  ];
}
