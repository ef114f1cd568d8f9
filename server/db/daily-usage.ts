import { raw, sqltag } from '@prisma/client/runtime/client';
import type pg from 'pg';
import type { GatewayDb } from './gateway-db';
import { exactInteger } from './rows';
import type { UsageDailyRow } from './types';

export type DailyUsageQuery = (accountId: string, startDay: string, endDay: string) => Promise<UsageDailyRow[]>;

/*
 * The usage report's read: every rollup row of one account in a range of up to 92 days, i.e.
 * up to 92 x its keys rows (70,000 for an account of 1,000 keys). Only the columns the report
 * needs, and no ORDER BY: the reporter groups the rows by key and orders each key's days
 * itself, while sorting them all in the database spilled to disk. Read raw: Prisma's findMany
 * spent most of the report's time building one object per row through its query engine.
 */
const COLUMNS =
  '"key_id", "day", "requests", "prompt_tokens", "completion_tokens", "cached_tokens", "cache_write_tokens", "cache_write_1h_tokens", "reasoning_tokens", "cost_nano_usd", "cost_femto_remainder"';

/** SQLite (and any Prisma client): a raw query; int64 columns arrive as bigint. */
export function dailyUsageThroughPrisma(db: GatewayDb): DailyUsageQuery {
  return async (accountId, startDay, endDay) => {
    const records = (await db.$queryRaw(sqltag`
      SELECT ${raw(COLUMNS)} FROM "usage_daily"
      WHERE "account_id" = ${accountId} AND "day" >= ${startDay} AND "day" <= ${endDay}`)) as Array<Record<string, unknown>>;
    const rows = new Array<UsageDailyRow>(records.length);
    for (let index = 0; index < records.length; index += 1) {
      const record = records[index] as Record<string, unknown>;
      rows[index] = {
        keyId: String(record.key_id),
        accountId,
        day: String(record.day),
        requests: Number(record.requests),
        promptTokens: Number(record.prompt_tokens),
        completionTokens: Number(record.completion_tokens),
        cachedTokens: Number(record.cached_tokens),
        cacheWriteTokens: Number(record.cache_write_tokens),
        cacheWrite1hTokens: Number(record.cache_write_1h_tokens),
        reasoningTokens: Number(record.reasoning_tokens),
        costNanoUsd: exactInteger(record.cost_nano_usd),
        costFemtoRemainder: Number(record.cost_femto_remainder),
      };
    }
    return rows;
  };
}

const DAILY_USAGE_STATEMENT = {
  // Named: each pooled connection parses and plans it once.
  name: 'gateway_daily_usage',
  text: `SELECT ${COLUMNS} FROM "usage_daily" WHERE "account_id" = $1 AND "day" >= $2 AND "day" <= $3`,
  rowMode: 'array' as const,
  // Every value as the text Postgres sent: converted below, exactly, whatever pg.types says.
  types: { getTypeParser: () => (text: string) => text },
};

/**
 * Postgres: the pg pool the Prisma adapter runs on, rows as arrays. Prisma's $queryRaw still
 * built an object per row (a third of the read on a 70,000-row report); this is the driver
 * alone.
 */
export function dailyUsageThroughPg(pool: pg.Pool): DailyUsageQuery {
  return async (accountId, startDay, endDay) => {
    const result = await pool.query<string[]>({ ...DAILY_USAGE_STATEMENT, values: [accountId, startDay, endDay] });
    const records = result.rows;
    const rows = new Array<UsageDailyRow>(records.length);
    for (let index = 0; index < records.length; index += 1) {
      const [
        keyId,
        day,
        requests,
        promptTokens,
        completionTokens,
        cachedTokens,
        cacheWriteTokens,
        cacheWrite1hTokens,
        reasoningTokens,
        costNanoUsd,
        costFemtoRemainder,
      ] = records[index] as string[];
      rows[index] = {
        keyId: keyId as string,
        accountId,
        day: day as string,
        requests: Number(requests),
        promptTokens: Number(promptTokens),
        completionTokens: Number(completionTokens),
        cachedTokens: Number(cachedTokens),
        cacheWriteTokens: Number(cacheWriteTokens),
        cacheWrite1hTokens: Number(cacheWrite1hTokens),
        reasoningTokens: Number(reasoningTokens),
        costNanoUsd: exactInteger(costNanoUsd),
        costFemtoRemainder: Number(costFemtoRemainder),
      };
    }
    return rows;
  };
}
