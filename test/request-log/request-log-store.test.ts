import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestLogRow } from '../../server/db/types';
import { startRetention } from '../../server/usage/retention';
import { dialectsUnderTest } from '../db/databases';
import { T0, usageEvent, useMigratedStore } from '../db/store-fixtures';
import { FakeStore } from '../helpers/fake-store';
import { fakeRequestRecord } from '../helpers/fake-request-record';

const DAY_MS = 86_400_000;

function record(id: string, receivedAt: Date, overrides: Partial<RequestLogRow> = {}): RequestLogRow {
  return fakeRequestRecord(id, { receivedAt, ...overrides });
}

/* docs/request-log.md: written in the usage batches' transaction, read back whole, pruned by age. */
for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`the request log's store (${dialect})`, () => {
    const fixture = useMigratedStore(create);

    it('writes records with a usage batch or alone, each once, and reads them back whole', async () => {
      const first = record('0001', new Date(T0.getTime() + 1_000));
      await fixture.store.recordUsage(
        [usageEvent({ requestId: 'req-0001', accountId: 'acc_r1', keyId: 'key_r1', day: '2026-03-01' })],
        [first],
      );
      // A retried batch carries the same records: nothing is stored twice.
      await fixture.store.recordUsage([], [first, record('0002', new Date(T0.getTime() + 2_000), { keyId: null, accountId: null })]);
      expect(await fixture.store.getRequest('0001')).toEqual(first);
      const page = await fixture.store.listRequests({ limit: 10 });
      expect(page.map((row) => row.id)).toEqual(['0002', '0001']);
      expect(await fixture.store.listRequests({ limit: 10, keyId: 'key_r1', status: 200 })).toHaveLength(1);
    });

    it('deletes records past their retention and clears bodies past theirs', async () => {
      const now = T0.getTime() + 100 * DAY_MS;
      await fixture.store.recordUsage(
        [],
        [
          record('old', new Date(now - 31 * DAY_MS)),
          record('week-old', new Date(now - 8 * DAY_MS)),
          record('fresh', new Date(now - DAY_MS)),
        ],
      );
      const pruned = await fixture.store.pruneRequestLog(new Date(now - 30 * DAY_MS), new Date(now - 7 * DAY_MS));
      expect(pruned.records).toBeGreaterThanOrEqual(1);
      expect(await fixture.store.getRequest('old')).toBeNull();
      expect(await fixture.store.getRequest('week-old')).toMatchObject({ requestBody: null, responseBody: null, promptTokens: 10 });
      expect(await fixture.store.getRequest('fresh')).toMatchObject({ requestBody: '{"model":"mock-chat"}' });
    });
  });
}

describe('retention on a controlled clock', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('prunes records after request_log.retention_days and bodies after bodies.retention_days', async () => {
    const store = new FakeStore();
    let now = Date.UTC(2026, 10, 1);
    await store.recordUsage([], [record('a', new Date(now)), record('b', new Date(now + 20 * DAY_MS))]);
    const stop = startRetention(store, {
      retentionDays: 400,
      now: () => now,
      onError: (error) => {
        throw error;
      },
      intervalMs: DAY_MS,
      requestLog: { retentionDays: 30, bodiesRetentionDays: 7 },
    });
    now += 8 * DAY_MS;
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await store.getRequest('a'))?.requestBody).toBeNull();
    expect((await store.getRequest('b'))?.requestBody).not.toBeNull();
    now += 23 * DAY_MS;
    await vi.advanceTimersByTimeAsync(DAY_MS);
    expect(await store.getRequest('a')).toBeNull();
    expect(await store.getRequest('b')).not.toBeNull();
    stop();
  });
});
