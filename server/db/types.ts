/**
 * The data access layer's interface: the rest of the server sees these plain rows and
 * functions; only server/db/ touches Prisma. Implemented once for both SQLite and Postgres.
 */
import type { RequestLogQuery, RequestLogRow } from './request-log-types';

/** The request log's rows, declared in request-log-types.ts. */
export type { RequestLogQuery, RequestLogRow };

export type KeyStatus = 'ACTIVE' | 'REVOKED';

/** docs/operator-controls.md, spend budgets: calendar periods in Asia/Shanghai. */
export type BudgetPeriod = 'day' | 'week' | 'month' | 'total';

/** A spend budget of a key or an account. */
export interface Budget {
  /** Exact femto-dollars (1e-15 USD). */
  amountFemtoUsd: bigint;
  period: BudgetPeriod;
  /** Fractions in (0, 1), ascending: a warning when settled spend first reaches each. */
  alertAt: number[];
  /** Epoch ms when the budget was last set: its spend counters start again from the ledger. */
  setAt: number;
}

/** What the operator caps an account's keys to (docs/operator-controls.md); null = no ceiling. */
export interface AccountCeilings {
  rpm: number | null;
  tpm: number | null;
  /** Catalogue ids or "prefix*" patterns; null = every model. */
  models: string[] | null;
  /** The account's spend budget; null = none. */
  budget: Budget | null;
}

export interface AccountRow extends AccountCeilings {
  id: string;
  name: string;
  createdAt: Date;
}

/** Who set something on a key: what the operator set, an owner may tighten but not loosen. */
export type Authority = 'operator' | 'owner';

/** Who blocked a key: an owner cannot lift the operator's block. */
export type BlockedBy = Authority;

/** The key settings whose setter is kept (docs/operator-controls.md, "Who set a key's settings"). */
export type KeySetting = 'rpm' | 'tpm' | 'models' | 'expiresAt' | 'budget';

/** Who set each setting; null while the setting is unset. */
export type KeySettingsSetBy = Record<KeySetting, Authority | null>;

export interface ApiKeyRow {
  id: string;
  accountId: string;
  name: string;
  /** SHA-256 of the full key text, hex. */
  keyHash: string;
  hint: string;
  status: KeyStatus;
  blocked: boolean;
  /** null = the configured default. */
  rpm: number | null;
  tpm: number | null;
  createdAt: Date;
  revokedAt: Date | null;
  updatedAt: Date;
  /** Catalogue ids or "prefix*" patterns; null = every model (within the account's). */
  models: string[] | null;
  expiresAt: Date | null;
  /** Set while `blocked`. */
  blockedBy: BlockedBy | null;
  /** The latest request recorded, as of the last usage batch written. */
  lastUsedAt: Date | null;
  /** The secret replaced by the last rotation, accepted until `previousKeyExpiresAt`. */
  previousKeyHash: string | null;
  previousKeyExpiresAt: Date | null;
  /** The key's own spend budget; null = none (the account's still applies). */
  budget: Budget | null;
  /** Who set each of rpm, tpm, models, expiresAt and budget. */
  setBy: KeySettingsSetBy;
  /** The account's ceilings, read with the key. */
  account: AccountCeilings;
}

/** One state change by the operator or an account owner (docs/operator-controls.md). */
export interface AuditEntryRow {
  id: string;
  at: Date;
  actor: 'operator' | 'owner';
  accountId: string | null;
  /** e.g. "key.create", "key.block", "account.update". */
  action: string;
  targetId: string;
  /** JSON of the object before and after (never a secret). */
  before: string | null;
  after: string | null;
  requestId: string | null;
}

export type ApiKeyPatch = Partial<
  Pick<
    ApiKeyRow,
    | 'name'
    | 'status'
    | 'blocked'
    | 'rpm'
    | 'tpm'
    | 'revokedAt'
    | 'models'
    | 'expiresAt'
    | 'blockedBy'
    | 'keyHash'
    | 'hint'
    | 'previousKeyHash'
    | 'previousKeyExpiresAt'
    | 'budget'
    | 'setBy'
  >
>;

/** What creating a key takes; no allow-list, expiry, budget or setter when absent. */
export type NewApiKey = Omit<
  ApiKeyRow,
  | 'revokedAt'
  | 'updatedAt'
  | 'status'
  | 'blocked'
  | 'blockedBy'
  | 'lastUsedAt'
  | 'previousKeyHash'
  | 'previousKeyExpiresAt'
  | 'account'
  | 'models'
  | 'expiresAt'
  | 'budget'
  | 'setBy'
> &
  Partial<Pick<ApiKeyRow, 'models' | 'expiresAt' | 'budget' | 'setBy'>>;

export interface UsageKeyRow {
  id: string;
  accountId: string;
  keyHash: string;
  hint: string;
  createdAt: Date;
  updatedAt: Date;
}

/** Token counts, as stored on an event and summed in the rollups. */
export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  /** Parts of promptTokens and completionTokens (docs/pricing.md). */
  cachedTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  reasoningTokens: number;
}

/** The rollup's summed columns as bigint: Prisma reads BIGINT so, and a batch sums in it (usage-rollup.ts). */
export type BigintRollupCounts = Record<keyof TokenCounts | 'costNanoUsd' | 'costFemtoRemainder', bigint>;

/**
 * One request's usage, as stored (docs/usage-report.md); the routes report it as a
 * `UsageEvent` (server/usage/types.ts), this row without its storage fields.
 * Money in exact integer femto-dollars (1e-15 USD).
 */
export interface UsageEventRow extends TokenCounts {
  /**
   * Unique per event, given by the gateway when it records the event (not by the database),
   * so a batch retried after a lost COMMIT acknowledgement carries the same ids and
   * `recordUsage` skips the events already stored.
   */
  eventId: string;
  requestId: string;
  accountId: string;
  keyId: string;
  /** Catalogue id of the model that answered (after a fallback, the fallback's id). */
  model: string;
  provider: string;
  /** The deployment that answered (docs/routing.md); null when none did, and on rows stored before it was kept. */
  deployment: string | null;
  /** Asia/Shanghai calendar day of `receivedAt`, YYYY-MM-DD. */
  day: string;
  /** When the gateway received the request: the day it is billed on. */
  receivedAt: Date;
  /** Exact cost, priced at request time. */
  costFemtoUsd: bigint;
  /** Tokens counted by the gateway because the provider reported none. */
  estimated: boolean;
  stream: boolean;
  /** HTTP status the client got; 499 when the client went away first. */
  status: number;
  errorCode: string | null;
  latencyMs: number;
}

/** The per key per day rollup, maintained with each batch. */
export interface UsageDailyRow extends TokenCounts {
  keyId: string;
  accountId: string;
  day: string;
  requests: number;
  /**
   * The day's cost is exactly costNanoUsd x 1e6 + costFemtoRemainder femto-dollars. Whole
   * nano-dollars are a number while that is exact (a safe integer: up to 9 million USD per key
   * and day) and a bigint beyond, so reading a report needs no bigint arithmetic in practice.
   */
  costNanoUsd: number | bigint;
  /** 0 to 999,999 femto-dollars. */
  costFemtoRemainder: number;
}

/**
 * One rollup row of the usage report's read (Store.keyDayUsage), as plain values: the row's day
 * as days after the range's first day, each value as in UsageDailyRow, and the key's number in
 * the read: 0 for the first key id handed over, 1 for the next other one, and so on, one number
 * per key id for the whole read (the report keeps its keys in an array by it, not a Map).
 */
export type KeyDayVisitor = (
  keyId: string,
  dayOffset: number,
  requests: number,
  promptTokens: number,
  completionTokens: number,
  costNanoUsd: number | bigint,
  costFemtoRemainder: number,
  keyNumber: number,
) => void;

/** What the usage report shows of a key (docs/usage-report.md). */
export type ReportKeyRow = Pick<ApiKeyRow, 'id' | 'name' | 'hint' | 'status' | 'blocked' | 'createdAt'>;

/** One key's usage of one model over a range of days, summed from the usage events. */
export interface ModelUsageRow extends TokenCounts {
  keyId: string;
  model: string;
  /** The deployment that answered (docs/routing.md); null for events without one (none answered, or stored before it was kept). */
  deployment: string | null;
  requests: number;
  costFemtoUsd: bigint;
}

/** A signed-in dashboard browser (the cookie holds the token; only its hash is stored). */
export interface DashboardSessionRow {
  id: string;
  /** SHA-256 of the session token, hex. */
  tokenHash: string;
  /** null = the operator (signed in with the admin token); else the one account it may see. */
  accountId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** A one-time dashboard login link of an account. */
export interface LoginTokenRow {
  id: string;
  /** SHA-256 of the token in the link, hex. */
  tokenHash: string;
  accountId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

/** The operator's enable/disable of a deployment (docs/routing.md); one without a row is enabled. */
export interface DeploymentStateRow {
  id: string;
  enabled: boolean;
  updatedAt: Date;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';

  createAccount(input: { id: string; name: string; createdAt: Date } & Partial<AccountCeilings>): Promise<AccountRow>;
  listAccounts(): Promise<AccountRow[]>;
  getAccount(id: string): Promise<AccountRow | null>;
  /**
   * Changes an account; with its ceilings changed, also stamps its keys' `updatedAt` in the
   * same transaction, so every instance's key cache re-reads them (they carry the ceilings).
   */
  updateAccount(id: string, patch: Partial<Pick<AccountRow, 'name'> & AccountCeilings>): Promise<AccountRow | null>;

  createApiKey(input: NewApiKey): Promise<ApiKeyRow>;
  getApiKey(id: string): Promise<ApiKeyRow | null>;
  /** Matches the current secret's hash, or the previous one while a rotation's grace lasts (the caller checks the time). */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRow | null>;
  /** Ordered by createdAt then name. */
  listApiKeys(accountId: string): Promise<ApiKeyRow[]>;
  /** The same keys in the same order, only what the usage report shows of them. */
  listReportKeys(accountId: string): Promise<ReportKeyRow[]>;
  updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyRow | null>;
  /** Keys whose row changed at or after `since` (updatedAt), for cache invalidation across processes. */
  apiKeysChangedSince(since: Date): Promise<ApiKeyRow[]>;

  /** Replaces the account's usage query key (at most one per account). */
  setUsageKey(input: { id: string; accountId: string; keyHash: string; hint: string; createdAt: Date }): Promise<UsageKeyRow>;
  getUsageKeyByAccount(accountId: string): Promise<UsageKeyRow | null>;
  findUsageKeyByHash(keyHash: string): Promise<UsageKeyRow | null>;
  usageKeysChangedSince(since: Date): Promise<UsageKeyRow[]>;

  /**
   * In one transaction: inserts the events and adds them into the daily rollup
   * (upsert-increment per key and day). Either everything is written or nothing.
   * Idempotent per event: an event whose `eventId` is already stored is skipped, in the
   * events and in the rollup, so retrying a batch whose commit was not acknowledged is safe.
   * In the same transaction each key's `lastUsedAt` moves forward to its newest event of the
   * batch (never back): one write per key and batch, never per request. The request log's
   * records (docs/request-log.md) go in the same transaction; a record already stored is skipped.
   */
  recordUsage(events: UsageEventRow[], requests?: readonly RequestLogRow[]): Promise<void>;

  appendAudit(entry: AuditEntryRow): Promise<void>;
  /** Newest first; `before` is the last entry of the previous page. */
  listAudit(query: { accountId?: string; limit: number; before?: { at: Date; id: string } }): Promise<AuditEntryRow[]>;
  /** Rollup rows of an account with `startDay <= day <= endDay`, in no particular order. */
  dailyUsage(accountId: string, startDay: string, endDay: string): Promise<UsageDailyRow[]>;
  /** The same rows, only what GET /v1/usage/keys's report shows, each given to `visit`, in no particular order. */
  keyDayUsage(accountId: string, startDay: string, endDay: string, visit: KeyDayVisitor): Promise<void>;
  /**
   * docs/operator-controls.md, spend budgets: the exact cost (femto-USD) of a key's or an
   * account's usage on the days `startDay <= day < endDay` (no end: every later day), from the
   * daily rollup, which is kept for good.
   */
  spendOfDays(scope: { keyId: string } | { accountId: string }, startDay: string, endDay: string | null): Promise<bigint>;
  /** Per key and model, from the usage events (kept `usage.retention_days`): the admin report's split. */
  modelUsage(accountId: string, startDay: string, endDay: string): Promise<ModelUsageRow[]>;
  countUsageEvents(filter?: { accountId?: string }): Promise<number>;
  /** Deletes raw events received before `before` (retention); the rollup is kept. */
  pruneUsageEvents(before: Date): Promise<number>;
  /** docs/request-log.md: newest first, then by id. */
  listRequests(query: RequestLogQuery): Promise<RequestLogRow[]>;
  getRequest(id: string): Promise<RequestLogRow | null>;
  /** Deletes records received before `before` and clears the bodies of those received before `bodiesBefore`. */
  pruneRequestLog(before: Date, bodiesBefore: Date): Promise<{ records: number; bodies: number }>;

  createDashboardSession(input: DashboardSessionRow): Promise<DashboardSessionRow>;
  findDashboardSessionByHash(tokenHash: string): Promise<DashboardSessionRow | null>;
  /** Signs out: no error when the session is already gone. */
  deleteDashboardSession(tokenHash: string): Promise<void>;
  createLoginToken(input: Omit<LoginTokenRow, 'usedAt'>): Promise<LoginTokenRow>;
  /**
   * Marks the token used, atomically: resolves to its row only for the one caller that
   * found it unused and not expired at `at`; every other call (used, expired, unknown) gets null.
   */
  consumeLoginToken(tokenHash: string, at: Date): Promise<LoginTokenRow | null>;
  /** Deletes sessions and login tokens that expired before `before`. */
  pruneDashboardCredentials(before: Date): Promise<number>;

  /** docs/routing.md: the deployments the operator enabled or disabled. */
  listDeploymentStates(): Promise<DeploymentStateRow[]>;
  setDeploymentEnabled(id: string, enabled: boolean, at: Date): Promise<DeploymentStateRow>;

  /** Cheap round trip for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
