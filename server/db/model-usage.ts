import { sqltag } from '@prisma/client/runtime/client';
import type { GatewayDb } from './gateway-db';
import type { ModelUsageRow } from './types';

/**
 * The admin report's per-model split: the usage events of one account in a range of days,
 * summed per key, model and deployment (docs/routing.md) by the database. The events are kept `usage.retention_days`, so a
 * range older than that has no split (the daily rollup still has its totals). Sums arrive as
 * numbers or bigints. The cost is summed in two parts, whole nano-dollars and the femto-dollars
 * left over, as the daily rollup stores it: one key's spend on one model can pass int64's
 * 9.2e18 femto-dollars ($9,223), where SQLite's SUM fails; each part arrives as decimal text.
 */
const FEMTO_PER_NANO = 1_000_000n;

export async function modelUsageThroughPrisma(
  db: GatewayDb,
  accountId: string,
  startDay: string,
  endDay: string,
): Promise<ModelUsageRow[]> {
  const records = (await db.$queryRaw(sqltag`
    SELECT "key_id", "model", "deployment", COUNT(*) AS "requests",
      SUM("prompt_tokens") AS "prompt_tokens", SUM("completion_tokens") AS "completion_tokens",
      SUM("cached_tokens") AS "cached_tokens", SUM("cache_write_tokens") AS "cache_write_tokens",
      SUM("cache_write_1h_tokens") AS "cache_write_1h_tokens", SUM("reasoning_tokens") AS "reasoning_tokens",
      CAST(SUM("cost_femto_usd" / 1000000) AS TEXT) AS "cost_nano_usd",
      CAST(SUM("cost_femto_usd" % 1000000) AS TEXT) AS "cost_femto_remainder"
    FROM "usage_events"
    WHERE "account_id" = ${accountId} AND "day" >= ${startDay} AND "day" <= ${endDay}
    GROUP BY "key_id", "model", "deployment"`)) as Array<Record<string, unknown>>;
  return records.map((record) => ({
    keyId: String(record.key_id),
    model: String(record.model),
    deployment: typeof record.deployment === 'string' ? record.deployment : null,
    requests: Number(record.requests),
    promptTokens: Number(record.prompt_tokens),
    completionTokens: Number(record.completion_tokens),
    cachedTokens: Number(record.cached_tokens),
    cacheWriteTokens: Number(record.cache_write_tokens),
    cacheWrite1hTokens: Number(record.cache_write_1h_tokens),
    reasoningTokens: Number(record.reasoning_tokens),
    costFemtoUsd: BigInt(String(record.cost_nano_usd)) * FEMTO_PER_NANO + BigInt(String(record.cost_femto_remainder)),
  }));
}
