import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { RequestLogRow } from '../../server/db/types';
import { UsageRecorder } from '../../server/usage/recorder';
import { FakeStore } from '../helpers/fake-store';
import { fakeRequestRecord } from '../helpers/fake-request-record';
import { fakeUsageEvent } from '../helpers/fake-usage-event';

/* docs/request-log.md, "Where": records ride in the usage batches' writes, or go alone when no usage waits, and survive a failed write. */
function requestRecord(id: string): RequestLogRow {
  return fakeRequestRecord(id, { accountId: null, keyId: null, status: 401, errorCode: 'missing_api_key' });
}

const silent = { warn: () => undefined, error: () => undefined, info: () => undefined };

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-03-01T08:00:00.000Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

it('writes the records with the usage batch, in one call', async () => {
  const store = new FakeStore();
  const recorder = new UsageRecorder(store, { flushIntervalMs: 1000, batchSize: 10, maxBufferedEvents: 1000, logger: silent });
  recorder.start();
  recorder.record(fakeUsageEvent(1));
  recorder.recordRequest(requestRecord('r1'));
  await vi.advanceTimersByTimeAsync(1000);
  expect(store.recordUsageCalls).toHaveLength(1);
  expect(store.requests.map((row) => row.id)).toEqual(['r1']);
});

it('writes records alone after the flush interval when no usage waits (refused requests)', async () => {
  const store = new FakeStore();
  const recorder = new UsageRecorder(store, { flushIntervalMs: 1000, batchSize: 10, maxBufferedEvents: 1000, logger: silent });
  recorder.start();
  recorder.recordRequest(requestRecord('r1'));
  recorder.recordRequest(requestRecord('r2'));
  await vi.advanceTimersByTimeAsync(999);
  expect(store.requests).toHaveLength(0);
  await vi.advanceTimersByTimeAsync(1);
  expect(store.requests.map((row) => row.id)).toEqual(['r1', 'r2']);
  expect(store.recordUsageCalls).toEqual([[]]);
});

it('keeps the records of a failed write for the retry, once each', async () => {
  const store = new FakeStore();
  const recorder = new UsageRecorder(store, {
    flushIntervalMs: 1000,
    batchSize: 10,
    maxBufferedEvents: 1000,
    logger: silent,
    random: () => 0.5,
  });
  store.failNext(1);
  recorder.start();
  recorder.recordRequest(requestRecord('r1'));
  await vi.advanceTimersByTimeAsync(1000);
  expect(store.requests).toHaveLength(0);
  recorder.recordRequest(requestRecord('r2'));
  await recorder.flush();
  expect(store.requests.map((row) => row.id)).toEqual(['r1', 'r2']);
});
