import { beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import type { UsageEventRow } from '../../server/db/types';
import { dialectsUnderTest, rawQuery } from './databases';
import { account, databaseColumns, openClient, usageEvent, useMigratedDatabase } from './schema-clients';

/*
 * The store writes usage with its own SQL, not through Prisma: these tests prove that what it
 * stores on a freshly migrated database is what the generated client stores for the same
 * values, column by column. The migrations against schema.prisma: schema-match.test.ts.
 */

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`migrated database matches schema.prisma (${dialect})`, () => {
    const migrated = useMigratedDatabase(create);

    beforeAll(async () => {
      // A usage event written by the generated client, for the raw SQL's rows to be compared with.
      const client = openClient(migrated.database.url);
      try {
        await client.usageEvent.create({ data: usageEvent });
      } finally {
        await client.$disconnect();
      }
    });

    it('stores rows written by the store’s raw SQL exactly as the client writes them', async () => {
      const { database } = migrated;
      const event: UsageEventRow = {
        eventId: 'evt_raw',
        requestId: 'req_raw',
        accountId: account.id,
        keyId: 'key_raw',
        model: 'gpt-4o',
        provider: 'openai',
        deployment: null,
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
      const { database } = migrated;
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
          // Postgres gets the batch as array literals: quotes, backslashes, commas, braces and
          // the text NULL (not a null) must come through as they are.
          model: 'vendor/"quoted", {braced} \\ model',
          provider: 'openai',
          deployment: null,
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
          errorCode: 'NULL',
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
        const rolledUp = await storedRows('usage_daily', `"key_id" = 'key_fmt'`, ['key_id', 'report_row']);
        expect(rolledUp).toHaveLength(1);
        expect(rolledUp).toEqual(await storedRows('usage_daily', `"key_id" = 'client_key_fmt'`, ['key_id', 'report_row']));
        // The row as the usage report reads it (migration 0011), the same text on both databases.
        const reportRows = await rawQuery<{ report_row: string }>(
          database.url,
          `SELECT "report_row" FROM "usage_daily" WHERE "key_id" IN ('key_fmt', 'client_key_fmt') ORDER BY "key_id"`,
        );
        expect(reportRows.map((row) => row.report_row)).toEqual([
          '14,client_key_fmt,2026-02-01,2,2000000003,4,9223372036856,775806',
          '7,key_fmt,2026-02-01,2,2000000003,4,9223372036856,775806',
        ]);
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
