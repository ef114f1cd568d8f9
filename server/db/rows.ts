import type { AccountCeilingsRecord, AccountRecord, ApiKeyWithAccountRecord, AuditEntryRecord, SetByColumns } from './gateway-db';
import { fromBudgetColumn } from './budget-column';
import type { AccountCeilings, AccountRow, ApiKeyRow, AuditEntryRow, Authority, KeySettingsSetBy, KeyStatus, UsageDailyRow } from './types';

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

export function toAccountRow(record: AccountRecord): AccountRow {
  return { ...record, models: fromModelsColumn(record.models), budget: fromBudgetColumn(record.budget) };
}

function toCeilings(record: AccountCeilingsRecord): AccountCeilings {
  return { rpm: record.rpm, tpm: record.tpm, models: fromModelsColumn(record.models), budget: fromBudgetColumn(record.budget) };
}

/** A models column (JSON array of strings, or NULL) as a list; anything else is a corrupt row. */
export function fromModelsColumn(text: string | null): string[] | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`a models column holds text that is not JSON: ${JSON.stringify(text.slice(0, 100))}`);
  }
  if (!Array.isArray(value) || !value.every((entry): entry is string => typeof entry === 'string')) {
    throw new Error(`a models column holds something other than a list of strings: ${JSON.stringify(text.slice(0, 100))}`);
  }
  return value;
}

export function toModelsColumn(models: string[] | null): string | null {
  return models === null ? null : JSON.stringify(models);
}

export function toAuditEntryRow(record: AuditEntryRecord): AuditEntryRow {
  const actor = record.actor === 'owner' ? 'owner' : 'operator';
  return { ...record, actor };
}

function toAuthority(value: string | null, column: string): Authority | null {
  if (value === null || value === 'operator' || value === 'owner') return value;
  throw new Error(`api_keys.${column} holds an unknown value: ${JSON.stringify(value)}`);
}

/** A key none of whose settings is set. */
export const NOTHING_SET: KeySettingsSetBy = { rpm: null, tpm: null, models: null, expiresAt: null, budget: null };

export function toSetByColumns(setBy: KeySettingsSetBy): SetByColumns {
  return {
    rpmSetBy: setBy.rpm,
    tpmSetBy: setBy.tpm,
    modelsSetBy: setBy.models,
    expiresAtSetBy: setBy.expiresAt,
    budgetSetBy: setBy.budget,
  };
}

/** The fields whose database type is wider than the row's: checked, not cast. */
export function toApiKeyRow(record: ApiKeyWithAccountRecord): ApiKeyRow {
  const { rpmSetBy, tpmSetBy, modelsSetBy, expiresAtSetBy, budgetSetBy, ...rest } = record;
  return {
    ...rest,
    status: toKeyStatus(record.status),
    models: fromModelsColumn(record.models),
    blockedBy: toAuthority(record.blockedBy, 'blocked_by'),
    budget: fromBudgetColumn(record.budget),
    setBy: {
      rpm: toAuthority(rpmSetBy, 'rpm_set_by'),
      tpm: toAuthority(tpmSetBy, 'tpm_set_by'),
      models: toAuthority(modelsSetBy, 'models_set_by'),
      expiresAt: toAuthority(expiresAtSetBy, 'expires_at_set_by'),
      budget: toAuthority(budgetSetBy, 'budget_set_by'),
    },
    account: toCeilings(record.account),
  };
}

export function toKeyStatus(status: string): KeyStatus {
  if (status === 'ACTIVE' || status === 'REVOKED') return status;
  throw new Error(`api_keys.status holds an unknown value: ${JSON.stringify(status)}`);
}
