import { describe, expect, it } from 'vitest';
import { Prisma as PostgresPrisma } from '../../server/db/generated/postgres/client';
import { Prisma as SqlitePrisma } from '../../server/db/generated/sqlite/client';
import { dialectsUnderTest, rawQuery, type Dialect } from './databases';
import {
  account,
  apiKey,
  auditEntry,
  dashboardSession,
  databaseColumns,
  fixtures,
  loginToken,
  openClient,
  requestLog,
  usageDaily,
  usageEvent,
  usageKey,
  useMigratedDatabase,
} from './schema-clients';
import { modelsOnly, parseModels, schemaText } from './schema-text';

/*
 * The migrations are hand-written SQL, so these tests prove they match schema.prisma:
 * same tables and columns (names and nullability), and every model written and read back
 * with all its fields through the generated client on a freshly migrated database. The
 * store's own SQL against the same database: schema-raw-writes.test.ts.
 */

describe('schema.prisma', () => {
  it('declares the same models for SQLite and Postgres', () => {
    const sqlite = modelsOnly(schemaText('sqlite'));
    expect(sqlite).toContain('model UsageDaily');
    expect(modelsOnly(schemaText('postgres'))).toBe(sqlite);
  });
});

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
    const migrated = useMigratedDatabase(create);
    const models = parseModels(schemaText(dialect));

    it('has exactly the models’ tables, with their columns and nullability', async () => {
      const { database } = migrated;
      expect(models.map((model) => model.model)).toEqual(fixtures.map((fixture) => fixture.model));
      expect(await databaseTables(dialect, database.url)).toEqual(models.map((model) => model.table).sort());
      for (const model of models) {
        const actual = Object.fromEntries(await databaseColumns(dialect, database.url, model.table));
        expect({ table: model.table, columns: actual }).toEqual({ table: model.table, columns: Object.fromEntries(model.columns) });
      }
    });

    it('writes and reads back every model with all its fields through the generated client', async () => {
      const { database } = migrated;
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
        expect(await client.requestLog.create({ data: requestLog })).toEqual(requestLog);
        expect(await client.requestLog.findUniqueOrThrow({ where: { id: requestLog.id } })).toEqual(requestLog);

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
  });
}
