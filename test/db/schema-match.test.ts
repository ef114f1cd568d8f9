import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
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
import { PrismaClient as PostgresPrismaClient, Prisma as PostgresPrisma } from '../../server/db/generated/postgres/client';
import { PrismaClient as SqlitePrismaClient, Prisma as SqlitePrisma } from '../../server/db/generated/sqlite/client';
import { migrate } from '../../server/db/migrate';
import type { UsageEventRow } from '../../server/db/types';
import { dialectsUnderTest, rawQuery, type Dialect, type TestDatabase } from './databases';
import { modelsOnly, parseModels, schemaText } from './schema-text';

/*
 * The migrations are hand-written SQL, so these tests prove they match schema.prisma:
 * same tables and columns (names and nullability), and every model written and read back
 * with all its fields through the generated client on a freshly migrated database.
 */

describe('schema.prisma', () => {
  it('declares the same models for SQLite and Postgres', () => {
    const sqlite = modelsOnly(schemaText('sqlite'));
    expect(sqlite).toContain('model UsageDaily');
    expect(modelsOnly(schemaText('postgres'))).toBe(sqlite);
  });
});

const account = {
  id: 'acc_schema',
  name: 'Schema Co',
  createdAt: new Date('2026-01-02T03:04:05.678Z'),
  rpm: 600,
  tpm: 90_000,
  models: '["gpt-4o","claude-*"]',
  budget: '{"amount_femto_usd":"100000000000000000","period":"month","alert_at":[0.8],"set_at":1767323045678}',
};
const apiKey = {
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
};
const auditEntry = {
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
const usageKey = {
  id: 'uk_schema',
  accountId: account.id,
  keyHash: 'e'.repeat(64),
  hint: 'uk-...abcd',
  createdAt: new Date('2026-01-04T00:00:00.000Z'),
  updatedAt: new Date('2026-01-04T00:00:00.500Z'),
};
const usageEvent = {
  id: 42n,
  eventId: 'evt_schema',
  requestId: 'req_schema',
  accountId: account.id,
  keyId: apiKey.id,
  model: 'claude-3-5-haiku',
  provider: 'anthropic',
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
const usageDaily = {
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

const dashboardSession = {
  id: 'sess_schema',
  tokenHash: 'd'.repeat(64),
  accountId: account.id,
  createdAt: new Date('2026-01-06T00:00:00.001Z'),
  expiresAt: new Date('2026-01-06T12:00:00.001Z'),
};
const loginToken = {
  id: 'login_schema',
  tokenHash: 'c'.repeat(64),
  accountId: account.id,
  createdAt: new Date('2026-01-06T00:00:00.002Z'),
  expiresAt: new Date('2026-01-07T00:00:00.002Z'),
  usedAt: new Date('2026-01-06T00:05:00.003Z'),
};

/** Each fixture sets every scalar field of its model, so a missing column cannot hide. */
const fixtures = [
  { model: 'Account', data: account, fields: SqlitePrisma.AccountScalarFieldEnum },
  { model: 'ApiKey', data: apiKey, fields: SqlitePrisma.ApiKeyScalarFieldEnum },
  { model: 'UsageKey', data: usageKey, fields: SqlitePrisma.UsageKeyScalarFieldEnum },
  { model: 'UsageEvent', data: usageEvent, fields: SqlitePrisma.UsageEventScalarFieldEnum },
  { model: 'UsageDaily', data: usageDaily, fields: SqlitePrisma.UsageDailyScalarFieldEnum },
  { model: 'DashboardSession', data: dashboardSession, fields: SqlitePrisma.DashboardSessionScalarFieldEnum },
  { model: 'LoginToken', data: loginToken, fields: SqlitePrisma.LoginTokenScalarFieldEnum },
  { model: 'AuditEntry', data: auditEntry, fields: SqlitePrisma.AuditEntryScalarFieldEnum },
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
  $disconnect(): Promise<void>;
}

function openClient(url: string): TestClient {
  const target = parseDatabaseUrl(url);
  if (target.kind === 'sqlite') {
    return new SqlitePrismaClient({ adapter: new PrismaBetterSqlite3({ url: target.filename }) });
  }
  return new PostgresPrismaClient({ adapter: new PrismaPg({ connectionString: target.connectionString }) });
}

async function databaseColumns(dialect: Dialect, url: string, table: string): Promise<Map<string, boolean>> {
  if (dialect === 'sqlite') {
    const rows = await rawQuery<{ name: string; notnull: bigint }>(url, `PRAGMA table_info("${table}")`);
    return new Map(rows.map((row) => [row.name, row.notnull === 0n]));
  }
  const rows = await rawQuery<{ column_name: string; is_nullable: string }>(
    url,
    `SELECT column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name = '${table}'`,
  );
  return new Map(rows.map((row) => [row.column_name, row.is_nullable === 'YES']));
}

async function databaseTables(dialect: Dialect, url: string): Promise<string[]> {
  const rows =
    dialect === 'sqlite'
      ? await rawQuery<{ name: string }>(url, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      : await rawQuery<{ name: string }>(url, `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`);
  return rows
    .map((row) => row.name)
    .filter((name) => name !== '_gateway_migrations')
    .sort();
}

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`migrated database matches schema.prisma (${dialect})`, () => {
    let database: TestDatabase;
    const models = parseModels(schemaText(dialect));

    beforeAll(async () => {
      database = await create();
      await migrate(database.url);
    });

    afterAll(async () => {
      await database?.drop();
    });

    it('has exactly the models’ tables, with their columns and nullability', async () => {
      expect(models.map((model) => model.model)).toEqual(fixtures.map((fixture) => fixture.model));
      expect(await databaseTables(dialect, database.url)).toEqual(models.map((model) => model.table).sort());
      for (const model of models) {
        const actual = Object.fromEntries(await databaseColumns(dialect, database.url, model.table));
        expect({ table: model.table, columns: actual }).toEqual({ table: model.table, columns: Object.fromEntries(model.columns) });
      }
    });

    it('writes and reads back every model with all its fields through the generated client', async () => {
      for (const fixture of fixtures) {
        expect(Object.keys(fixture.data).sort()).toEqual(Object.keys(fixture.fields).sort());
      }
      // The Postgres client's field lists are the same as SQLite's.
      expect(Object.keys(PostgresPrisma.UsageEventScalarFieldEnum)).toEqual(Object.keys(SqlitePrisma.UsageEventScalarFieldEnum));

      const client = openClient(database.url);
      try {
        expect(await client.account.create({ data: account })).toEqual(account);
        expect(await client.apiKey.create({ data: apiKey })).toEqual(apiKey);
        expect(await client.usageKey.create({ data: usageKey })).toEqual(usageKey);
        expect(await client.usageEvent.create({ data: usageEvent })).toEqual(usageEvent);
        expect(await client.usageDaily.create({ data: usageDaily })).toEqual(usageDaily);
        expect(await client.dashboardSession.create({ data: dashboardSession })).toEqual(dashboardSession);
        expect(await client.loginToken.create({ data: loginToken })).toEqual(loginToken);
        expect(await client.auditEntry.create({ data: auditEntry })).toEqual(auditEntry);
        expect(await client.auditEntry.findUniqueOrThrow({ where: { id: auditEntry.id } })).toEqual(auditEntry);

        expect(await client.account.findUniqueOrThrow({ where: { id: account.id } })).toEqual(account);
        expect(await client.apiKey.findUniqueOrThrow({ where: { keyHash: apiKey.keyHash } })).toEqual(apiKey);
        expect(await client.usageKey.findUniqueOrThrow({ where: { accountId: usageKey.accountId } })).toEqual(usageKey);
        expect(await client.usageEvent.findUniqueOrThrow({ where: { id: usageEvent.id } })).toEqual(usageEvent);
        expect(
          await client.usageDaily.findUniqueOrThrow({ where: { keyId_day: { keyId: usageDaily.keyId, day: usageDaily.day } } }),
        ).toEqual(usageDaily);
        expect(await client.dashboardSession.findUniqueOrThrow({ where: { tokenHash: dashboardSession.tokenHash } })).toEqual(
          dashboardSession,
        );
        expect(await client.loginToken.findUniqueOrThrow({ where: { tokenHash: loginToken.tokenHash } })).toEqual(loginToken);
        // The operator's session has no account; an unused link has no usedAt.
        const operator = { ...dashboardSession, id: 'sess_operator', tokenHash: '1'.repeat(64), accountId: null };
        expect(await client.dashboardSession.create({ data: operator })).toEqual(operator);
        const unused = { ...loginToken, id: 'login_unused', tokenHash: '2'.repeat(64), usedAt: null };
        expect(await client.loginToken.create({ data: unused })).toEqual(unused);

        // Defaults declared in the schema exist in the SQL, and the database generates ids.
        const defaults = await client.apiKey.create({
          data: {
            ...apiKey,
            id: 'key_defaults',
            keyHash: '0'.repeat(64),
            status: undefined,
            blocked: undefined,
            rpm: null,
            revokedAt: null,
            previousKeyHash: null,
          },
        });
        expect(defaults).toMatchObject({ status: 'ACTIVE', blocked: false, rpm: null, revokedAt: null });
        const { id, ...withoutId } = usageEvent;
        const next = await client.usageEvent.create({ data: { ...withoutId, eventId: 'evt_next', requestId: 'req_next' } });
        expect(typeof next.id).toBe('bigint');
        expect(next.id).not.toBe(id);
        // Event ids are unique, except that any number of rows from before 0003 have none.
        await expect(client.usageEvent.create({ data: { ...withoutId, requestId: 'req_again' } })).rejects.toThrow();
        for (const requestId of ['req_legacy_1', 'req_legacy_2']) {
          expect(await client.usageEvent.create({ data: { ...withoutId, eventId: null, requestId } })).toMatchObject({ eventId: null });
        }
      } finally {
        await client.$disconnect();
      }
    });

    it('stores rows written by the store’s raw SQL exactly as the client writes them', async () => {
      const event: UsageEventRow = {
        eventId: 'evt_raw',
        requestId: 'req_raw',
        accountId: account.id,
        keyId: 'key_raw',
        model: 'gpt-4o',
        provider: 'openai',
        day: '2026-01-06',
        receivedAt: new Date('2026-01-05T16:00:00.001Z'),
        promptTokens: 11,
        completionTokens: 22,
        cachedTokens: 3,
        cacheWriteTokens: 2,
        cacheWrite1hTokens: 1,
        reasoningTokens: 9,
        costFemtoUsd: 123_456_789n,
        estimated: false,
        stream: true,
        status: 200,
        errorCode: null,
        latencyMs: 5,
      };
      const store = await createStore(database.url);
      const client = openClient(database.url);
      try {
        await store.recordUsage([event]);
        const { id, ...read } = await client.usageEvent.findFirstOrThrow({ where: { requestId: 'req_raw' } });
        expect(typeof id).toBe('bigint');
        expect(read).toEqual(event);
        expect(await client.usageDaily.findUniqueOrThrow({ where: { keyId_day: { keyId: 'key_raw', day: '2026-01-06' } } })).toEqual({
          keyId: 'key_raw',
          day: '2026-01-06',
          accountId: account.id,
          requests: 1,
          promptTokens: 11n,
          completionTokens: 22n,
          cachedTokens: 3n,
          cacheWriteTokens: 2n,
          cacheWrite1hTokens: 1n,
          reasoningTokens: 9n,
          costNanoUsd: 123n,
          costFemtoRemainder: 456_789n,
        });

        // Same stored text for a DateTime whether Prisma or the raw INSERT wrote it, so
        // comparisons (apiKeysChangedSince, pruneUsageEvents) see one format.
        const text = dialect === 'sqlite' ? '"received_at"' : 'to_char("received_at", \'YYYY-MM-DD"T"HH24:MI:SS.MS\')';
        const stored = await rawQuery<{ request_id: string; received_at: string }>(
          database.url,
          `SELECT "request_id", ${text} AS "received_at" FROM "usage_events" WHERE "request_id" IN ('req_raw', 'req_schema') ORDER BY "request_id"`,
        );
        const expected =
          dialect === 'sqlite'
            ? ['2026-01-05T16:00:00.001+00:00', '2026-01-04T16:00:00.000+00:00']
            : ['2026-01-05T16:00:00.001', '2026-01-04T16:00:00.000'];
        expect(stored.map((row) => row.received_at)).toEqual(expected);
      } finally {
        await client.$disconnect();
        await store.close();
      }
    });

    it('stores every column of recorded usage exactly as the client stores the same values, in any time zone', async () => {
      // recordUsage writes through the driver, not Prisma. Away from UTC, a Date handed to a
      // driver as local time (pg does) would be stored hours off in a column without zone.
      const timeZone = process.env.TZ;
      process.env.TZ = 'Asia/Shanghai';
      const store = await createStore(database.url);
      const client = openClient(database.url);
      try {
        expect(new Date('2026-01-01T00:00:00.000Z').getTimezoneOffset()).toBe(-480);
        const first: UsageEventRow = {
          eventId: 'evt_fmt_1',
          requestId: 'req_fmt_1',
          accountId: account.id,
          keyId: 'key_fmt',
          model: 'gpt-4o',
          provider: 'openai',
          day: '2026-02-01',
          receivedAt: new Date('2026-01-31T16:00:00.000Z'),
          promptTokens: 2_000_000_000,
          completionTokens: 0,
          cachedTokens: 1_000_000_000,
          cacheWriteTokens: 5,
          cacheWrite1hTokens: 6,
          reasoningTokens: 0,
          costFemtoUsd: 9_223_372_036_854_775_807n,
          estimated: true,
          stream: false,
          status: 499,
          errorCode: 'client_closed',
          latencyMs: 0,
        };
        const second: UsageEventRow = {
          ...first,
          eventId: 'evt_fmt_2',
          requestId: 'req_fmt_2',
          receivedAt: new Date('2026-02-01T15:59:59.999Z'),
          promptTokens: 3,
          completionTokens: 4,
          cachedTokens: 1,
          cacheWriteTokens: 0,
          cacheWrite1hTokens: 0,
          reasoningTokens: 2,
          costFemtoUsd: 1_999_999n,
          estimated: false,
          stream: true,
          status: 200,
          errorCode: null,
          latencyMs: 12_345,
        };
        // Two batches: the rollup row is inserted by the first, incremented by the second.
        await store.recordUsage([first]);
        await store.recordUsage([second]);
        for (const event of [first, second]) {
          await client.usageEvent.create({
            data: { ...event, eventId: `client_${event.eventId}`, requestId: `client_${event.requestId}` },
          });
        }
        const total = first.costFemtoUsd + second.costFemtoUsd;
        await client.usageDaily.create({
          data: {
            keyId: 'client_key_fmt',
            day: first.day,
            accountId: account.id,
            requests: 2,
            promptTokens: 2_000_000_003n,
            completionTokens: 4n,
            cachedTokens: 1_000_000_001n,
            cacheWriteTokens: 5n,
            cacheWrite1hTokens: 6n,
            reasoningTokens: 2n,
            costNanoUsd: total / 1_000_000n,
            costFemtoRemainder: total % 1_000_000n,
          },
        });

        // Each column as stored: SQLite's quote() shows the storage class too (text quoted,
        // a real with a decimal point); Postgres's columns are typed, their text is the value.
        const storedRows = async (table: string, where: string, leaveOut: string[]) => {
          const columns = [...(await databaseColumns(dialect, database.url, table)).keys()].filter((column) => !leaveOut.includes(column));
          const select = columns.map((column) => (dialect === 'sqlite' ? `quote("${column}")` : `"${column}"::text`) + ` AS "${column}"`);
          return rawQuery<Record<string, unknown>>(database.url, `SELECT ${select.join(', ')} FROM "${table}" WHERE ${where}`);
        };
        const byRequest = (prefix: string) => `"request_id" IN ('${prefix}req_fmt_1', '${prefix}req_fmt_2') ORDER BY "request_id"`;
        const recorded = await storedRows('usage_events', byRequest(''), ['id', 'event_id', 'request_id']);
        expect(recorded).toHaveLength(2);
        expect(recorded).toEqual(await storedRows('usage_events', byRequest('client_'), ['id', 'event_id', 'request_id']));
        const rolledUp = await storedRows('usage_daily', `"key_id" = 'key_fmt'`, ['key_id']);
        expect(rolledUp).toHaveLength(1);
        expect(rolledUp).toEqual(await storedRows('usage_daily', `"key_id" = 'client_key_fmt'`, ['key_id']));
        // And the stored text of the instants is UTC, as the client's.
        expect(recorded.map((row) => String(row.received_at))).toEqual(
          dialect === 'sqlite'
            ? ["'2026-01-31T16:00:00.000+00:00'", "'2026-02-01T15:59:59.999+00:00'"]
            : ['2026-01-31 16:00:00', '2026-02-01 15:59:59.999'],
        );
      } finally {
        if (timeZone === undefined) delete process.env.TZ;
        else process.env.TZ = timeZone;
        await client.$disconnect();
        await store.close();
      }
    });
  });
}
