import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { dailyCostFemtoUsd } from '../../server/db/rows';
import type { UsageEventRow } from '../../server/db/types';
import { T0, usageEvent, describeStoreUsage } from './store-fixtures';

await describeStoreUsage((fixture, dialect) => {
  it('records batches written at the same time, each event once', async () => {
    const batches = Array.from({ length: 4 }, (_, batch) =>
      Array.from({ length: 60 }, (_, index) =>
        usageEvent({ accountId: 'acc_u2', keyId: `k_concurrent_${(index + batch) % 5}`, day: '2026-06-25', costFemtoUsd: 3n }),
      ),
    );
    const before = await fixture.store.countUsageEvents({ accountId: 'acc_u2' });
    // The first batch twice, as a retry racing the original would: one copy skips every event.
    await Promise.all([...batches, batches[0] as UsageEventRow[]].map((events) => fixture.store.recordUsage(events)));
    expect(await fixture.store.countUsageEvents({ accountId: 'acc_u2' })).toBe(before + 240);
    const rows = await fixture.store.dailyUsage('acc_u2', '2026-06-25', '2026-06-25');
    expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(240);
    expect(rows.reduce((sum, row) => sum + dailyCostFemtoUsd(row), 0n)).toBe(720n);
  });

  it('records usage while another write of the store is in progress', async () => {
    // SQLite: recordUsage has a connection of its own, and a transaction of the other one
    // (setUsageKey) holds the write lock through a few nextTick callbacks. A batch started
    // in that window must not wait for it (it would wait the whole busy timeout, 10 s,
    // the event loop blocked, and then fail).
    const before = await fixture.store.countUsageEvents({ accountId: 'acc_u1' });
    for (let ticks = 0; ticks < 8; ticks += 1) {
      const key = fixture.store.setUsageKey({
        id: `uk_busy_${ticks}`,
        accountId: 'acc_u1',
        keyHash: `uhash_busy_${ticks}`,
        hint: 'x',
        createdAt: T0,
      });
      let later = Promise.resolve();
      for (let tick = 0; tick < ticks; tick += 1) later = later.then(() => new Promise<void>((resolve) => process.nextTick(resolve)));
      const recorded = later.then(() =>
        fixture.store.recordUsage([usageEvent({ accountId: 'acc_u1', keyId: 'k_busy', day: '2026-06-26' })]),
      );
      const started = performance.now();
      await Promise.all([key, recorded]);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    expect(await fixture.store.countUsageEvents({ accountId: 'acc_u1' })).toBe(before + 8);
  });

  it.skipIf(dialect !== 'postgres')('rejects a batch whose connection is lost mid-transaction, and records its retry once', async () => {
    const batch = [
      usageEvent({ accountId: 'acc_u2', keyId: 'k_lost', day: '2026-06-27', costFemtoUsd: 11n }),
      usageEvent({ accountId: 'acc_u2', keyId: 'k_lost', day: '2026-06-27', costFemtoUsd: 13n }),
    ];
    const before = await fixture.store.countUsageEvents({ accountId: 'acc_u2' });
    const other = new pg.Client({ connectionString: fixture.database.url });
    await other.connect();
    try {
      // Holds the rollup's table so the batch waits for it, its statement running, then
      // ends the batch's connection there (a server restart, a network failure).
      await other.query('BEGIN');
      await other.query('LOCK TABLE "usage_daily" IN EXCLUSIVE MODE');
      // Its rejection is handled from the start: it comes while the test is still ending the connection.
      const refused = expect(fixture.store.recordUsage(batch)).rejects.toThrow();
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
      await refused;
      await other.query('ROLLBACK');
    } finally {
      await other.end();
    }
    expect(await fixture.store.countUsageEvents({ accountId: 'acc_u2' })).toBe(before);
    // The retry gets a working connection from the pool (the lost one was dropped).
    await fixture.store.recordUsage(batch);
    expect(await fixture.store.countUsageEvents({ accountId: 'acc_u2' })).toBe(before + 2);
    const rows = await fixture.store.dailyUsage('acc_u2', '2026-06-27', '2026-06-27');
    expect(rows.map((row) => [row.keyId, row.requests, dailyCostFemtoUsd(row)])).toEqual([['k_lost', 2, 24n]]);
  });

  it('refuses a batch after close (its usage connection is closed too)', async () => {
    const closed = await createStore(fixture.database.url);
    await closed.recordUsage([usageEvent({ accountId: 'acc_u1', keyId: 'k_closed', day: '2026-06-28' })]);
    await closed.close();
    await expect(closed.recordUsage([usageEvent({ accountId: 'acc_u1', keyId: 'k_closed', day: '2026-06-28' })])).rejects.toThrow();
    expect((await fixture.store.dailyUsage('acc_u1', '2026-06-28', '2026-06-28')).map((row) => row.requests)).toEqual([1]);
  });

  it('writes nothing when any event of a batch fails', async () => {
    const before = await fixture.store.countUsageEvents();
    const good = usageEvent({ accountId: 'acc_u1', keyId: 'k_atomic', day: '2026-07-01' });
    // A NOT NULL column left null: the database rejects the second row.
    const bad = { ...usageEvent({ accountId: 'acc_u1', keyId: 'k_atomic', day: '2026-07-01' }), model: null as unknown as string };
    await expect(fixture.store.recordUsage([good, bad])).rejects.toThrow();
    expect(await fixture.store.countUsageEvents()).toBe(before);
    expect(await fixture.store.dailyUsage('acc_u1', '2026-07-01', '2026-07-01')).toEqual([]);
  });

  it('refuses a negative cost', async () => {
    await expect(
      fixture.store.recordUsage([usageEvent({ accountId: 'acc_u1', keyId: 'k_neg', day: '2026-07-02', costFemtoUsd: -1n })]),
    ).rejects.toThrow(/negative cost/);
  });
});
