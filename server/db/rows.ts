import type { ApiKeyRecord } from './gateway-db';
import type { ApiKeyRow, KeyStatus, UsageDailyRow } from './types';

/** Femto-dollars per nano-dollar: the rollup stores cost as nano-dollars plus a femto remainder. */
export const FEMTO_PER_NANO = 1_000_000n;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * An integer read raw from an int64 column (pg gives text, SQLite a bigint or a number) as a
 * JS number when that is exact, else as a bigint: never a rounded value.
 */
export function exactInteger(value: unknown): number | bigint {
  if (typeof value === 'string') {
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : BigInt(value);
  }
  if (typeof value === 'bigint') return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  throw new Error(`expected an exact integer from the database, got ${typeof value} ${String(value)}`);
}

/** A rollup row's cost in femto-dollars (UsageDailyRow keeps it as nano-dollars plus a remainder). */
export function dailyCostFemtoUsd(row: Pick<UsageDailyRow, 'costNanoUsd' | 'costFemtoRemainder'>): bigint {
  return BigInt(row.costNanoUsd) * FEMTO_PER_NANO + BigInt(row.costFemtoRemainder);
}

/** Femto-dollars split the way UsageDailyRow holds them. */
export function splitFemtoUsd(femto: bigint): Pick<UsageDailyRow, 'costNanoUsd' | 'costFemtoRemainder'> {
  return { costNanoUsd: exactInteger(femto / FEMTO_PER_NANO), costFemtoRemainder: Number(femto % FEMTO_PER_NANO) };
}

/** The one field whose database type is wider than the row's: checked, not cast. */
export function toApiKeyRow(record: ApiKeyRecord): ApiKeyRow {
  return { ...record, status: toKeyStatus(record.status) };
}

function toKeyStatus(status: string): KeyStatus {
  if (status === 'ACTIVE' || status === 'REVOKED') return status;
  throw new Error(`api_keys.status holds an unknown value: ${JSON.stringify(status)}`);
}
