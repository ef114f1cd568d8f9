import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { migrate } from '../../server/db/migrate';
import { dailyCostFemtoUsd } from '../../server/db/rows';
import type { Store, UsageEventRow } from '../../server/db/types';
import { dialectsUnderTest, type TestDatabase } from './databases';
import { byKeyAndDay, manualClock, T0, usageEvent } from './store-fixtures';

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`Store (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    const clock = manualClock();

    beforeAll(async () => {
      database = await create();
      await migrate(database.url);
      store = await createStore(database.url, { now: clock.now });
    });

    afterAll(async () => {
      await store?.close();
      await database?.drop();
    });

    beforeEach(() => clock.set(T0));

    describe('usage', () => {
      beforeAll(async () => {
        await store.createAccount({ id: 'acc_u1', name: 'U1', createdAt: T0 });
        await store.createAccount({ id: 'acc_u2', name: 'U2', createdAt: T0 });
      });

      it('records events and sums them per key and day, across batches', async () => {
        await store.recordUsage([
          usageEvent({
            accountId: 'acc_u1',
            keyId: 'k_a',
            day: '2026-03-01',
            promptTokens: 10,
            completionTokens: 1,
            cachedTokens: 4,
            cacheWriteTokens: 3,
            costFemtoUsd: 1_500_000n,
          }),
          usageEvent({
            accountId: 'acc_u1',
            keyId: 'k_a',
            day: '2026-03-01',
            promptTokens: 20,
            completionTokens: 2,
            cachedTokens: 5,
            cacheWrite1hTokens: 6,
            reasoningTokens: 1,
            costFemtoUsd: 700_000n,
          }),
          usageEvent({ accountId: 'acc_u1', keyId: 'k_a', day: '2026-03-02', promptTokens: 30, completionTokens: 3, costFemtoUsd: 1n }),
          usageEvent({
            accountId: 'acc_u1',
            keyId: 'k_b',
            day: '2026-03-01',
            promptTokens: 0,
            completionTokens: 0,
            costFemtoUsd: 0n,
            status: 502,
            errorCode: 'upstream_unavailable',
          }),
          usageEvent({ accountId: 'acc_u2', keyId: 'k_c', day: '2026-03-01', promptTokens: 5, completionTokens: 5, costFemtoUsd: 5n }),
        ]);
        await store.recordUsage([
          usageEvent({
            accountId: 'acc_u1',
            keyId: 'k_a',
            day: '2026-03-01',
            promptTokens: 100,
            completionTokens: 10,
            reasoningTokens: 7,
            costFemtoUsd: 999_999n,
            stream: true,
            estimated: true,
          }),
        ]);
        await store.recordUsage([]);

        expect(byKeyAndDay(await store.dailyUsage('acc_u1', '2026-03-01', '2026-03-02'))).toEqual([
          {
            keyId: 'k_a',
            accountId: 'acc_u1',
            day: '2026-03-01',
            requests: 3,
            promptTokens: 130,
            completionTokens: 13,
            cachedTokens: 9,
            cacheWriteTokens: 3,
            cacheWrite1hTokens: 6,
            reasoningTokens: 8,
            costNanoUsd: 3,
            costFemtoRemainder: 199_999,
          },
          {
            keyId: 'k_a',
            accountId: 'acc_u1',
            day: '2026-03-02',
            requests: 1,
            promptTokens: 30,
            completionTokens: 3,
            cachedTokens: 0,
            cacheWriteTokens: 0,
            cacheWrite1hTokens: 0,
            reasoningTokens: 0,
            costNanoUsd: 0,
            costFemtoRemainder: 1,
          },
          {
            keyId: 'k_b',
            accountId: 'acc_u1',
            day: '2026-03-01',
            requests: 1,
            promptTokens: 0,
            completionTokens: 0,
            cachedTokens: 0,
            cacheWriteTokens: 0,
            cacheWrite1hTokens: 0,
            reasoningTokens: 0,
            costNanoUsd: 0,
            costFemtoRemainder: 0,
          },
        ]);
        expect(await store.dailyUsage('acc_u2', '2026-03-01', '2026-03-01')).toEqual([
          {
            keyId: 'k_c',
            accountId: 'acc_u2',
            day: '2026-03-01',
            requests: 1,
            promptTokens: 5,
            completionTokens: 5,
            cachedTokens: 0,
            cacheWriteTokens: 0,
            cacheWrite1hTokens: 0,
            reasoningTokens: 0,
            costNanoUsd: 0,
            costFemtoRemainder: 5,
          },
        ]);
        expect(await store.countUsageEvents({ accountId: 'acc_u1' })).toBe(5);
        // The admin report's per-model split, summed from the events.
        expect(await store.modelUsage('acc_u1', '2026-03-01', '2026-03-01')).toEqual(
          expect.arrayContaining([
            {
              keyId: 'k_a',
              model: 'gpt-4o-mini',
              requests: 3,
              promptTokens: 130,
              completionTokens: 13,
              cachedTokens: 9,
              cacheWriteTokens: 3,
              cacheWrite1hTokens: 6,
              reasoningTokens: 8,
              costFemtoUsd: 3_199_999n,
            },
            {
              keyId: 'k_b',
              model: 'gpt-4o-mini',
              requests: 1,
              promptTokens: 0,
              completionTokens: 0,
              cachedTokens: 0,
              cacheWriteTokens: 0,
              cacheWrite1hTokens: 0,
              reasoningTokens: 0,
              costFemtoUsd: 0n,
            },
          ]),
        );
        expect(await store.modelUsage('acc_u1', '2026-03-01', '2026-03-01')).toHaveLength(2);
        expect(await store.countUsageEvents({ accountId: 'acc_u2' })).toBe(1);
      });

      it('filters the rollup by account and an inclusive day range', async () => {
        await store.recordUsage(
          ['2026-04-01', '2026-04-15', '2026-04-30', '2026-05-01'].flatMap((day) => [
            usageEvent({ accountId: 'acc_u2', keyId: 'k_r2', day }),
            usageEvent({ accountId: 'acc_u2', keyId: 'k_r1', day }),
            usageEvent({ accountId: 'acc_u1', keyId: 'k_r3', day }),
          ]),
        );
        const rows = byKeyAndDay(await store.dailyUsage('acc_u2', '2026-04-01', '2026-04-30'));
        expect(rows.map((row) => `${row.keyId} ${row.day}`)).toEqual([
          'k_r1 2026-04-01',
          'k_r1 2026-04-15',
          'k_r1 2026-04-30',
          'k_r2 2026-04-01',
          'k_r2 2026-04-15',
          'k_r2 2026-04-30',
        ]);
        expect(await store.dailyUsage('acc_u2', '2026-04-16', '2026-04-29')).toEqual([]);
        expect(await store.dailyUsage('acc_nobody', '2026-01-01', '2026-12-31')).toEqual([]);
      });

      it('keeps exact cost sums beyond 2^63 femto-dollars in the rollup', async () => {
        // One event may cost up to int64 femto-dollars (9,223 USD); a day's sum may not fit.
        const big = 9_000_000_000_000_000_123n;
        await store.recordUsage([
          usageEvent({ accountId: 'acc_u1', keyId: 'k_big', day: '2026-06-01', costFemtoUsd: big }),
          usageEvent({ accountId: 'acc_u1', keyId: 'k_big', day: '2026-06-01', costFemtoUsd: big }),
        ]);
        for (let batch = 0; batch < 3; batch++) {
          await store.recordUsage([usageEvent({ accountId: 'acc_u1', keyId: 'k_big', day: '2026-06-01', costFemtoUsd: big + 999_999n })]);
        }
        const [row] = await store.dailyUsage('acc_u1', '2026-06-01', '2026-06-01');
        const expected = 5n * big + 3n * 999_999n;
        expect(expected > 2n ** 63n * 4n).toBe(true);
        expect(row).toEqual({
          keyId: 'k_big',
          accountId: 'acc_u1',
          day: '2026-06-01',
          requests: 5,
          promptTokens: 500,
          completionTokens: 100,
          cachedTokens: 0,
          cacheWriteTokens: 0,
          cacheWrite1hTokens: 0,
          reasoningTokens: 0,
          costNanoUsd: Number(expected / 1_000_000n),
          costFemtoRemainder: Number(expected % 1_000_000n),
        });
        expect(row && dailyCostFemtoUsd(row)).toBe(expected);
      });

      it('reads a day beyond 2^53 nano-dollars back exactly, as a bigint', async () => {
        // 1,000 events at the largest cost one event may have (int64 femto-dollars, 9,223 USD).
        const max = 9_223_372_036_854_775_807n;
        const events = Array.from({ length: 1_000 }, () =>
          usageEvent({ accountId: 'acc_u1', keyId: 'k_huge', day: '2026-06-02', costFemtoUsd: max }),
        );
        await store.recordUsage(events);
        const [row] = await store.dailyUsage('acc_u1', '2026-06-02', '2026-06-02');
        expect(row?.costNanoUsd).toBe((1_000n * max) / 1_000_000n);
        expect(typeof row?.costNanoUsd).toBe('bigint');
        expect(row?.costFemtoRemainder).toBe(Number((1_000n * max) % 1_000_000n));
      });

      it('records a batch given twice once, in the events and in the rollup (a retry after a lost COMMIT acknowledgement)', async () => {
        const batch = [
          usageEvent({
            accountId: 'acc_u2',
            keyId: 'k_retry',
            day: '2026-06-10',
            promptTokens: 7,
            completionTokens: 3,
            costFemtoUsd: 400_000n,
          }),
          usageEvent({
            accountId: 'acc_u2',
            keyId: 'k_retry',
            day: '2026-06-10',
            promptTokens: 11,
            completionTokens: 5,
            costFemtoUsd: 700_001n,
          }),
          usageEvent({ accountId: 'acc_u2', keyId: 'k_retry', day: '2026-06-11', promptTokens: 13, completionTokens: 0, costFemtoUsd: 9n }),
        ];
        const eventsBefore = await store.countUsageEvents({ accountId: 'acc_u2' });
        await store.recordUsage(batch);
        const once = byKeyAndDay(await store.dailyUsage('acc_u2', '2026-06-10', '2026-06-11'));
        expect(once.map((row) => [row.day, row.requests, row.promptTokens, row.completionTokens, dailyCostFemtoUsd(row)])).toEqual([
          ['2026-06-10', 2, 18, 8, 1_100_001n],
          ['2026-06-11', 1, 13, 0, 9n],
        ]);

        await store.recordUsage(batch.map((event) => ({ ...event })));
        expect(await store.countUsageEvents({ accountId: 'acc_u2' })).toBe(eventsBefore + 3);
        expect(byKeyAndDay(await store.dailyUsage('acc_u2', '2026-06-10', '2026-06-11'))).toEqual(once);

        // A retried batch that also carries new events: only the new ones count.
        const fresh = usageEvent({
          accountId: 'acc_u2',
          keyId: 'k_retry',
          day: '2026-06-11',
          promptTokens: 1,
          completionTokens: 1,
          costFemtoUsd: 1n,
        });
        await store.recordUsage([batch[2] as UsageEventRow, fresh, batch[0] as UsageEventRow]);
        expect(await store.countUsageEvents({ accountId: 'acc_u2' })).toBe(eventsBefore + 4);
        const after = byKeyAndDay(await store.dailyUsage('acc_u2', '2026-06-10', '2026-06-11'));
        expect(after.map((row) => [row.day, row.requests, row.promptTokens, row.completionTokens, dailyCostFemtoUsd(row)])).toEqual([
          ['2026-06-10', 2, 18, 8, 1_100_001n],
          ['2026-06-11', 2, 14, 1, 10n],
        ]);
      });

      it('counts an event id repeated inside one batch once', async () => {
        const event = usageEvent({ accountId: 'acc_u2', keyId: 'k_twice', day: '2026-06-12', costFemtoUsd: 5n });
        await store.recordUsage([event, { ...event }]);
        const rows = await store.dailyUsage('acc_u2', '2026-06-12', '2026-06-12');
        expect(rows.map((row) => [row.requests, dailyCostFemtoUsd(row)])).toEqual([[1, 5n]]);
      });

      it('records a batch of over 500 events, in several statements on Postgres, skipping those already stored', async () => {
        const days = ['2026-06-20', '2026-06-21', '2026-06-22'];
        const batch = Array.from({ length: 1_203 }, (_, index) =>
          usageEvent({ accountId: 'acc_u2', keyId: `k_many_${index % 7}`, day: days[index % 3] as string, costFemtoUsd: BigInt(index) }),
        );
        const before = await store.countUsageEvents({ accountId: 'acc_u2' });
        // Part of it was stored before, across the first statement's last rows and the second's first.
        await store.recordUsage(batch.slice(450, 620));
        await store.recordUsage(batch);
        await store.recordUsage(batch.slice(1_000));
        expect(await store.countUsageEvents({ accountId: 'acc_u2' })).toBe(before + 1_203);
        const rows = await store.dailyUsage('acc_u2', days[0] as string, days[2] as string);
        const many = rows.filter((row) => row.keyId.startsWith('k_many_'));
        expect(many).toHaveLength(21);
        expect(many.reduce((sum, row) => sum + row.requests, 0)).toBe(1_203);
        expect(many.reduce((sum, row) => sum + dailyCostFemtoUsd(row), 0n)).toBe(BigInt((1_202 * 1_203) / 2));
      });

      it('records batches written at the same time, each event once', async () => {
        const batches = Array.from({ length: 4 }, (_, batch) =>
          Array.from({ length: 60 }, (_, index) =>
            usageEvent({ accountId: 'acc_u2', keyId: `k_concurrent_${(index + batch) % 5}`, day: '2026-06-25', costFemtoUsd: 3n }),
          ),
        );
        const before = await store.countUsageEvents({ accountId: 'acc_u2' });
        // The first batch twice, as a retry racing the original would: one copy skips every event.
        await Promise.all([...batches, batches[0] as UsageEventRow[]].map((events) => store.recordUsage(events)));
        expect(await store.countUsageEvents({ accountId: 'acc_u2' })).toBe(before + 240);
        const rows = await store.dailyUsage('acc_u2', '2026-06-25', '2026-06-25');
        expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(240);
        expect(rows.reduce((sum, row) => sum + dailyCostFemtoUsd(row), 0n)).toBe(720n);
      });

      it('records usage while another write of the store is in progress', async () => {
        // SQLite: recordUsage has a connection of its own, and a transaction of the other one
        // (setUsageKey) holds the write lock through a few nextTick callbacks. A batch started
        // in that window must not wait for it (it would wait the whole busy timeout, 10 s,
        // the event loop blocked, and then fail).
        const before = await store.countUsageEvents({ accountId: 'acc_u1' });
        for (let ticks = 0; ticks < 8; ticks += 1) {
          const key = store.setUsageKey({
            id: `uk_busy_${ticks}`,
            accountId: 'acc_u1',
            keyHash: `uhash_busy_${ticks}`,
            hint: 'x',
            createdAt: T0,
          });
          let later = Promise.resolve();
          for (let tick = 0; tick < ticks; tick += 1) later = later.then(() => new Promise<void>((resolve) => process.nextTick(resolve)));
          const recorded = later.then(() => store.recordUsage([usageEvent({ accountId: 'acc_u1', keyId: 'k_busy', day: '2026-06-26' })]));
          const started = performance.now();
          await Promise.all([key, recorded]);
          expect(performance.now() - started).toBeLessThan(2_000);
        }
        expect(await store.countUsageEvents({ accountId: 'acc_u1' })).toBe(before + 8);
      });

      it.skipIf(dialect !== 'postgres')(
        'rejects a batch whose connection is lost mid-transaction, and records its retry once',
        async () => {
          const batch = [
            usageEvent({ accountId: 'acc_u2', keyId: 'k_lost', day: '2026-06-27', costFemtoUsd: 11n }),
            usageEvent({ accountId: 'acc_u2', keyId: 'k_lost', day: '2026-06-27', costFemtoUsd: 13n }),
          ];
          const before = await store.countUsageEvents({ accountId: 'acc_u2' });
          const other = new pg.Client({ connectionString: database.url });
          await other.connect();
          try {
            // Holds the rollup's table so the batch stops at its upsert, events inserted, then
            // ends the batch's connection there (a server restart, a network failure).
            await other.query('BEGIN');
            await other.query('LOCK TABLE "usage_daily" IN EXCLUSIVE MODE');
            const write = store.recordUsage(batch);
            let pid: number | undefined;
            for (let attempt = 0; attempt < 400 && pid === undefined; attempt += 1) {
              const { rows } = await other.query<{ pid: number }>(
                `SELECT "pid" FROM pg_stat_activity WHERE "datname" = current_database() AND "wait_event_type" = 'Lock' AND "pid" <> pg_backend_pid()`,
              );
              pid = rows[0]?.pid;
              if (pid === undefined) await sleep(25);
            }
            expect(pid).toBeDefined();
            await other.query('SELECT pg_terminate_backend($1)', [pid]);
            await expect(write).rejects.toThrow();
            await other.query('ROLLBACK');
          } finally {
            await other.end();
          }
          expect(await store.countUsageEvents({ accountId: 'acc_u2' })).toBe(before);
          // The retry gets a working connection from the pool (the lost one was dropped).
          await store.recordUsage(batch);
          expect(await store.countUsageEvents({ accountId: 'acc_u2' })).toBe(before + 2);
          const rows = await store.dailyUsage('acc_u2', '2026-06-27', '2026-06-27');
          expect(rows.map((row) => [row.keyId, row.requests, dailyCostFemtoUsd(row)])).toEqual([['k_lost', 2, 24n]]);
        },
      );

      it('refuses a batch after close (its usage connection is closed too)', async () => {
        const closed = await createStore(database.url);
        await closed.recordUsage([usageEvent({ accountId: 'acc_u1', keyId: 'k_closed', day: '2026-06-28' })]);
        await closed.close();
        await expect(closed.recordUsage([usageEvent({ accountId: 'acc_u1', keyId: 'k_closed', day: '2026-06-28' })])).rejects.toThrow();
        expect((await store.dailyUsage('acc_u1', '2026-06-28', '2026-06-28')).map((row) => row.requests)).toEqual([1]);
      });

      it('writes nothing when any event of a batch fails', async () => {
        const before = await store.countUsageEvents();
        const good = usageEvent({ accountId: 'acc_u1', keyId: 'k_atomic', day: '2026-07-01' });
        // A NOT NULL column left null: the database rejects the second row.
        const bad = { ...usageEvent({ accountId: 'acc_u1', keyId: 'k_atomic', day: '2026-07-01' }), model: null as unknown as string };
        await expect(store.recordUsage([good, bad])).rejects.toThrow();
        expect(await store.countUsageEvents()).toBe(before);
        expect(await store.dailyUsage('acc_u1', '2026-07-01', '2026-07-01')).toEqual([]);
      });

      it('refuses a negative cost', async () => {
        await expect(
          store.recordUsage([usageEvent({ accountId: 'acc_u1', keyId: 'k_neg', day: '2026-07-02', costFemtoUsd: -1n })]),
        ).rejects.toThrow(/negative cost/);
      });

      it('prunes raw events received before a time and keeps the rollup', async () => {
        await store.recordUsage([
          usageEvent({ accountId: 'acc_u2', keyId: 'k_p', day: '2026-08-01', receivedAt: new Date('2026-07-31T16:00:00.000Z') }),
          usageEvent({ accountId: 'acc_u2', keyId: 'k_p', day: '2026-08-01', receivedAt: new Date('2026-08-01T15:59:59.999Z') }),
          usageEvent({ accountId: 'acc_u2', keyId: 'k_p', day: '2026-08-02', receivedAt: new Date('2026-08-01T16:00:00.000Z') }),
        ]);
        const total = await store.countUsageEvents();
        const rollupBefore = await store.dailyUsage('acc_u2', '2026-08-01', '2026-08-02');
        // Everything recorded by earlier tests was received before 2026-08-01 as well.
        const olderThanAugust = total - 2;
        expect(await store.pruneUsageEvents(new Date('2026-08-01T15:59:59.999Z'))).toBe(olderThanAugust);
        expect(await store.countUsageEvents()).toBe(2);
        expect(await store.pruneUsageEvents(new Date('2026-08-01T15:59:59.999Z'))).toBe(0);
        expect(byKeyAndDay(await store.dailyUsage('acc_u2', '2026-08-01', '2026-08-02'))).toEqual(byKeyAndDay(rollupBefore));
        expect(byKeyAndDay(rollupBefore).map((row) => row.requests)).toEqual([2, 1]);
      });
    });
  });
}
