import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { migrate } from '../../server/db/migrate';
import { dailyCostFemtoUsd } from '../../server/db/rows';
import type { Store } from '../../server/db/types';
import { UsageRecorder } from '../../server/usage/recorder';
import { shanghaiDay } from '../../server/usage/shanghai-day';
import type { UsageEvent } from '../../server/usage/types';
import { fakeUsageEvent } from '../helpers/fake-usage-event';

const EVENT_COUNT = 10_000;
/** Ten seconds either side of midnight in Asia/Shanghai, so the events fall on two days. */
const FIRST_RECEIVED_AT = Date.parse('2026-03-01T15:59:50.000Z');

const silentLogger = { warn: () => {}, error: () => {}, info: () => {} };

describe('UsageRecorder with a real SQLite store', () => {
  let directory: string;
  let store: Store;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'usage-recorder-'));
    const databaseUrl = `file:${join(directory, 'gateway.db')}`;
    await migrate(databaseUrl);
    store = await createStore(databaseUrl);
  });

  afterAll(async () => {
    await store?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it(`records ${EVENT_COUNT} events exactly once, with matching daily rollups`, async () => {
    const recorder = new UsageRecorder(store, {
      flushIntervalMs: 200,
      batchSize: 500,
      maxBufferedEvents: 50_000,
      logger: silentLogger,
    });
    recorder.start();
    const events: UsageEvent[] = [];
    for (let index = 0; index < EVENT_COUNT; index += 1) {
      events.push(
        fakeUsageEvent(index, {
          // Three keys per account (a key belongs to one account: index % 6 has the parity of index).
          accountId: `acct_${index % 2}`,
          keyId: `key_${index % 6}`,
          receivedAt: FIRST_RECEIVED_AT + index * 2,
        }),
      );
    }

    const started = performance.now();
    // Arrivals in bursts, with the event loop free in between as on a live server.
    for (let index = 0; index < events.length; index += 1) {
      recorder.record(events[index] as UsageEvent);
      if (index % 250 === 249) await new Promise((resolve) => setImmediate(resolve));
    }
    const result = await recorder.drain(30_000);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `usage recorder -> SQLite: ${EVENT_COUNT} events in ${seconds.toFixed(2)} s = ${Math.round(EVENT_COUNT / seconds)} events/s`,
    );

    // drain() reports what it wrote itself; the rest was written in the background meanwhile.
    expect(result.lost).toBe(0);
    expect(recorder.stats()).toEqual({ buffered: 0, written: EVENT_COUNT, dropped: 0, lost: 0, failing: false });
    expect(await store.countUsageEvents()).toBe(EVENT_COUNT);
    expect(await store.countUsageEvents({ accountId: 'acct_0' })).toBe(EVENT_COUNT / 2);

    for (const accountId of ['acct_0', 'acct_1']) {
      const expected = new Map<string, { requests: number; promptTokens: number; completionTokens: number; cost: bigint }>();
      for (const event of events) {
        if (event.accountId !== accountId) continue;
        const mapKey = `${event.keyId} ${shanghaiDay(event.receivedAt)}`;
        const total = expected.get(mapKey) ?? { requests: 0, promptTokens: 0, completionTokens: 0, cost: 0n };
        total.requests += 1;
        total.promptTokens += event.promptTokens;
        total.completionTokens += event.completionTokens;
        total.cost += event.costFemtoUsd;
        expected.set(mapKey, total);
      }
      const rows = await store.dailyUsage(accountId, '2026-03-01', '2026-03-02');
      expect(new Set(rows.map((row) => row.day))).toEqual(new Set(['2026-03-01', '2026-03-02']));
      expect(
        new Map(
          rows.map((row) => [
            `${row.keyId} ${row.day}`,
            {
              requests: row.requests,
              promptTokens: row.promptTokens,
              completionTokens: row.completionTokens,
              cost: dailyCostFemtoUsd(row),
            },
          ]),
        ),
      ).toEqual(expected);
    }
  });
});
