// Shared by the tests that check the hand-written migrations against schema.prisma
// (schema-match.test.ts) and the store's raw SQL against the generated client (schema-raw-writes.test.ts).
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll } from 'vitest';
import { parseDatabaseUrl } from '../../server/db/database-url';
import type {
  AccountRecord,
  ApiKeyRecord,
  AuditEntryRecord,
  DashboardSessionRecord,
  LoginTokenRecord,
  UsageDailyRecord,
  UsageKeyRecord,
} from '../../server/db/gateway-db';
import { PrismaClient as PostgresPrismaClient } from '../../server/db/generated/postgres/client';
import { PrismaClient as SqlitePrismaClient, Prisma as SqlitePrisma } from '../../server/db/generated/sqlite/client';
import { migrate } from '../../server/db/migrate';
import type { RequestLogRow, UsageEventRow } from '../../server/db/types';
import { rawQuery, type Dialect, type TestDatabase } from './databases';

export const account = {
  id: 'acc_schema',
  name: 'Schema Co',
  createdAt: new Date('2026-01-02T03:04:05.678Z'),
  rpm: 600,
  tpm: 90_000,
  models: '["gpt-4o","claude-*"]',
  budget: '{"amount_femto_usd":"100000000000000000","period":"month","alert_at":[0.8],"set_at":1767323045678}',
};
export const apiKey = {
  id: 'key_schema',
  accountId: account.id,
  name: 'everything',
  keyHash: 'f'.repeat(64),
  hint: 'sk-...wxyz',
  status: 'REVOKED',
  blocked: true,
  rpm: 120,
  tpm: 2_000_000,
  createdAt: new Date('2026-01-02T03:04:05.001Z'),
  revokedAt: new Date('2026-01-03T00:00:00.999Z'),
  updatedAt: new Date('2026-01-03T00:00:01.000Z'),
  models: '["gpt-4o"]',
  expiresAt: new Date('2026-02-01T00:00:00.000Z'),
  blockedBy: 'operator',
  lastUsedAt: new Date('2026-01-02T23:59:59.999Z'),
  previousKeyHash: 'a'.repeat(64),
  previousKeyExpiresAt: new Date('2026-01-02T04:00:00.000Z'),
  budget: '{"amount_femto_usd":"5000000000000000","period":"day","alert_at":[],"set_at":1767323045678}',
  rpmSetBy: 'operator',
  tpmSetBy: 'owner',
  modelsSetBy: 'operator',
  expiresAtSetBy: null,
  budgetSetBy: 'owner',
};
export const auditEntry = {
  id: 'aud_schema',
  at: new Date('2026-01-03T00:00:01.000Z'),
  actor: 'owner',
  accountId: account.id,
  action: 'key.block',
  targetId: 'key_schema',
  before: '{"blocked":false}',
  after: '{"blocked":true}',
  requestId: 'req_audit',
};
export const usageKey = {
  id: 'uk_schema',
  accountId: account.id,
  keyHash: 'e'.repeat(64),
  hint: 'uk-...abcd',
  createdAt: new Date('2026-01-04T00:00:00.000Z'),
  updatedAt: new Date('2026-01-04T00:00:00.500Z'),
};
export const usageEvent = {
  id: 42n,
  eventId: 'evt_schema',
  requestId: 'req_schema',
  accountId: account.id,
  keyId: apiKey.id,
  model: 'claude-3-5-haiku',
  provider: 'anthropic',
  deployment: 'haiku-direct',
  day: '2026-01-05',
  receivedAt: new Date('2026-01-04T16:00:00.000Z'),
  promptTokens: 2_000_000_000,
  completionTokens: 7,
  cachedTokens: 2_147_483_647,
  cacheWriteTokens: 3,
  cacheWrite1hTokens: 4,
  reasoningTokens: 5,
  costFemtoUsd: 9_223_372_036_854_775_807n,
  estimated: true,
  stream: true,
  status: 499,
  errorCode: 'client_closed',
  latencyMs: 1_234,
};
export const usageDaily = {
  keyId: apiKey.id,
  day: '2026-01-05',
  accountId: account.id,
  requests: 2_147_483_647,
  promptTokens: 9_007_199_254_740_993n,
  completionTokens: 1n,
  cachedTokens: 9_007_199_254_740_995n,
  cacheWriteTokens: 2n,
  cacheWrite1hTokens: 3n,
  reasoningTokens: 4n,
  costNanoUsd: 9_223_372_036_854_775_807n,
  costFemtoRemainder: 999_999n,
};

export const dashboardSession = {
  id: 'sess_schema',
  tokenHash: 'd'.repeat(64),
  accountId: account.id,
  createdAt: new Date('2026-01-06T00:00:00.001Z'),
  expiresAt: new Date('2026-01-06T12:00:00.001Z'),
};
export const loginToken = {
  id: 'login_schema',
  tokenHash: 'c'.repeat(64),
  accountId: account.id,
  createdAt: new Date('2026-01-06T00:00:00.002Z'),
  expiresAt: new Date('2026-01-07T00:00:00.002Z'),
  usedAt: new Date('2026-01-06T00:05:00.003Z'),
};

export const requestLog: RequestLogRow = {
  id: '0193b2c4-0000-7000-8000-000000000001',
  requestId: 'req_log',
  receivedAt: new Date('2026-01-08T00:00:00.004Z'),
  accountId: account.id,
  keyId: apiKey.id,
  route: '/v1/messages',
  requestedModel: 'claude-3-5-haiku',
  model: 'claude-3-5-haiku',
  provider: 'anthropic',
  deployment: 'haiku-direct',
  stream: true,
  status: 429,
  errorCode: 'rate_limit_exceeded',
  promptTokens: 2_147_483_647,
  completionTokens: 1,
  cachedTokens: 2,
  cacheWriteTokens: 3,
  cacheWrite1hTokens: 4,
  reasoningTokens: 5,
  costFemtoUsd: 9_223_372_036_854_775_807n,
  latencyMs: 1_234,
  firstByteMs: 56,
  upstreamMs: 789,
  upstreamAttempts: 3,
  clientIp: '203.0.113.7',
  userAgent: 'schema-test/1',
  sessionId: 'session_schema',
  requestBody: '{"model":"claude-3-5-haiku"}',
  responseBody: 'data: {}',
};

export const deploymentState = { id: 'haiku-direct', enabled: false, updatedAt: new Date('2026-01-09T00:00:00.005Z') };

/** Each fixture sets every scalar field of its model, so a missing column cannot hide. */
export const fixtures = [
  { model: 'Account', data: account, fields: SqlitePrisma.AccountScalarFieldEnum },
  { model: 'ApiKey', data: apiKey, fields: SqlitePrisma.ApiKeyScalarFieldEnum },
  { model: 'UsageKey', data: usageKey, fields: SqlitePrisma.UsageKeyScalarFieldEnum },
  { model: 'UsageEvent', data: usageEvent, fields: SqlitePrisma.UsageEventScalarFieldEnum },
  { model: 'UsageDaily', data: usageDaily, fields: SqlitePrisma.UsageDailyScalarFieldEnum },
  { model: 'DashboardSession', data: dashboardSession, fields: SqlitePrisma.DashboardSessionScalarFieldEnum },
  { model: 'LoginToken', data: loginToken, fields: SqlitePrisma.LoginTokenScalarFieldEnum },
  { model: 'AuditEntry', data: auditEntry, fields: SqlitePrisma.AuditEntryScalarFieldEnum },
  { model: 'RequestLog', data: requestLog, fields: SqlitePrisma.RequestLogScalarFieldEnum },
  { model: 'DeploymentState', data: deploymentState, fields: SqlitePrisma.DeploymentStateScalarFieldEnum },
];

interface Delegate<Create, Read, Where> {
  create(args: { data: Create }): Promise<Read>;
  findUniqueOrThrow(args: { where: Where }): Promise<Read>;
}

/** Rows stored before migration 0003 have no event id. */
type UsageEventRecord = Omit<UsageEventRow, 'eventId'> & { id: bigint; eventId: string | null };

/** The generated clients of both dialects, as far as these tests use them (both are checked against it). */
interface TestClient {
  account: Delegate<AccountRecord, AccountRecord, { id: string }>;
  apiKey: Delegate<
    Omit<ApiKeyRecord, 'status' | 'blocked'> & Partial<Pick<ApiKeyRecord, 'status' | 'blocked'>>,
    ApiKeyRecord,
    { keyHash: string }
  >;
  usageKey: Delegate<UsageKeyRecord, UsageKeyRecord, { accountId: string }>;
  usageEvent: Delegate<Omit<UsageEventRecord, 'id'> & { id?: bigint }, UsageEventRecord, { id: bigint }> & {
    findFirstOrThrow(args: { where: { requestId: string } }): Promise<UsageEventRecord>;
  };
  usageDaily: Delegate<UsageDailyRecord, UsageDailyRecord, { keyId_day: { keyId: string; day: string } }>;
  dashboardSession: Delegate<DashboardSessionRecord, DashboardSessionRecord, { tokenHash: string }>;
  loginToken: Delegate<LoginTokenRecord, LoginTokenRecord, { tokenHash: string }>;
  auditEntry: Delegate<AuditEntryRecord, AuditEntryRecord, { id: string }>;
  requestLog: Delegate<RequestLogRow, RequestLogRow, { id: string }>;
  deploymentState: Delegate<typeof deploymentState, typeof deploymentState, { id: string }>;
  $disconnect(): Promise<void>;
}

export function openClient(url: string): TestClient {
  const target = parseDatabaseUrl(url);
  if (target.kind === 'sqlite') {
    return new SqlitePrismaClient({ adapter: new PrismaBetterSqlite3({ url: target.filename }) });
  }
  return new PostgresPrismaClient({ adapter: new PrismaPg({ connectionString: target.connectionString }) });
}

/** Each column of `table` as the database has it, and whether it is nullable. */
export async function databaseColumns(dialect: Dialect, url: string, table: string): Promise<Map<string, boolean>> {
  if (dialect === 'sqlite') {
    // table_xinfo: generated columns too.
    const rows = await rawQuery<{ name: string; notnull: bigint }>(url, `PRAGMA table_xinfo("${table}")`);
    return new Map(rows.map((row) => [row.name, row.notnull === 0n]));
  }
  const rows = await rawQuery<{ column_name: string; is_nullable: string }>(
    url,
    `SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = '${table}'`,
  );
  return new Map(rows.map((row) => [row.column_name, row.is_nullable === 'YES']));
}

/**
 * A freshly migrated database for the enclosing describe, dropped after it. Read `database`
 * inside tests (it exists from beforeAll on).
 */
export function useMigratedDatabase(create: () => Promise<TestDatabase>) {
  const fixture = { database: undefined as unknown as TestDatabase };
  beforeAll(async () => {
    fixture.database = await create();
    await migrate(fixture.database.url);
  });
  afterAll(async () => {
    await fixture.database?.drop();
  });
  return fixture;
}
