import { sqltag } from '@prisma/client/runtime/client';
import type { GatewayDb } from './gateway-db';
import { FEMTO_PER_NANO } from './rows';
import type { Store } from './types';

/**
 * docs/operator-controls.md, spend budgets: a key's or an account's exact spend over whole
 * Asia/Shanghai days, from the daily rollup (kept for good, unlike the raw events). The sums
 * come back as text (Postgres sums int64 into numeric) and are read exactly.
 */
export async function spendOfDaysThroughPrisma(
  db: GatewayDb,
  scope: Parameters<Store['spendOfDays']>[0],
  startDay: string,
  endDay: string | null,
): Promise<bigint> {
  const owner = 'keyId' in scope ? sqltag`"key_id" = ${scope.keyId}` : sqltag`"account_id" = ${scope.accountId}`;
  const end = endDay === null ? sqltag`` : sqltag`AND "day" < ${endDay}`;
  const records = (await db.$queryRaw(sqltag`
    SELECT CAST(COALESCE(SUM("cost_nano_usd"), 0) AS TEXT) AS "nano",
      CAST(COALESCE(SUM("cost_femto_remainder"), 0) AS TEXT) AS "femto"
    FROM "usage_daily"
    WHERE ${owner} AND "day" >= ${startDay} ${end}`)) as Array<Record<string, unknown>>;
  const record = records[0];
  if (record === undefined) return 0n;
  return BigInt(String(record.nano)) * FEMTO_PER_NANO + BigInt(String(record.femto));
}
