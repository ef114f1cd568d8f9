import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { vi } from 'vitest';
import { dailyCostFemtoUsd } from '../../server/db/rows';
import { UsageRecorder, type UsageRecorderOptions } from '../../server/usage/recorder';
import { FakeStore } from '../helpers/fake-store';
import { fakeUsageEvent } from '../helpers/fake-usage-event';

interface LogCall {
  level: 'warn' | 'error' | 'info';
  details: Record<string, unknown>;
  message: string;
}

function recordingLogger() {
  const calls: LogCall[] = [];
  const keep = (level: LogCall['level']) => (details: object, message: string) => {
    calls.push({ level, details: { ...details }, message });
  };
  return { calls, warn: keep('warn'), error: keep('error'), info: keep('info') };
}

function setup(options: Partial<UsageRecorderOptions> = {}) {
  const store = new FakeStore();
  const logger = recordingLogger();
  const recorder = new UsageRecorder(store, {
    flushIntervalMs: 1000,
    batchSize: 10,
    maxBufferedEvents: 1000,
    logger,
    random: () => 0.5,
    ...options,
  });
  return { store, logger, recorder };
}

const ids = (events: { requestId: string }[]) => events.map((event) => event.requestId);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => `req_${from + index}`);
const errorsMatching = (calls: LogCall[], text: string) => calls.filter((call) => call.level === 'error' && call.message.includes(text));

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2026-03-01T08:00:00.000Z') });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('UsageRecorder batching', () => {
  it('writes full batches soon after batchSize is reached, never inside record()', async () => {
    const { store, recorder } = setup({ batchSize: 3 });
    recorder.start();
    for (let index = 0; index < 7; index += 1) recorder.record(fakeUsageEvent(index));
    expect(store.recordUsageCalls).toHaveLength(0);

    await vi.advanceTimersByTimeAsync(0);
    expect(store.recordUsageCalls.map((batch) => batch.length)).toEqual([3, 3]);

    // The seventh event waits for the time flush, counted from the first buffered event.
    await vi.advanceTimersByTimeAsync(999);
    expect(store.recordUsageCalls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.recordUsageCalls.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(ids(store.events)).toEqual(range(0, 7));
    expect(recorder.stats()).toEqual({ buffered: 0, written: 7, dropped: 0, lost: 0, failing: false });
  });

  it('shows how hard it works: the age of the oldest event held, and the writes and their time', async () => {
    const { store, recorder } = setup({ batchSize: 5 });
    store.latencyMs = 400;
    recorder.start();
    expect(recorder.pressure()).toEqual({ oldestBufferedMs: 0, writes: 0, writeMs: 0 });
    for (let index = 0; index < 10; index += 1) recorder.record(fakeUsageEvent(index));
    // The first batch is being written, the second waits behind it: the oldest is 100 ms old.
    await vi.advanceTimersByTimeAsync(100);
    expect(recorder.pressure()).toEqual({ oldestBufferedMs: 100, writes: 0, writeMs: 0 });
    await vi.advanceTimersByTimeAsync(400);
    expect(recorder.pressure()).toEqual({ oldestBufferedMs: 500, writes: 1, writeMs: 400 });
    await vi.advanceTimersByTimeAsync(300);
    expect(recorder.pressure()).toEqual({ oldestBufferedMs: 0, writes: 2, writeMs: 800 });
    expect(recorder.stats()).toMatchObject({ buffered: 0, written: 10 });
  });

  it('writes at most flushIntervalMs after the first buffered event', async () => {
    const { store, recorder } = setup({ flushIntervalMs: 500 });
    recorder.start();
    recorder.record(fakeUsageEvent(0));
    await vi.advanceTimersByTimeAsync(300);
    recorder.record(fakeUsageEvent(1));
    await vi.advanceTimersByTimeAsync(199);
    expect(store.events).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.recordUsageCalls.map(ids)).toEqual([['req_0', 'req_1']]);

    recorder.record(fakeUsageEvent(2));
    await vi.advanceTimersByTimeAsync(499);
    expect(store.events).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(ids(store.events)).toEqual(range(0, 3));
  });

  it('does not write before start(), and keeps what was recorded before it', async () => {
    const { store, recorder } = setup({ batchSize: 2 });
    for (let index = 0; index < 5; index += 1) recorder.record(fakeUsageEvent(index));
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.recordUsageCalls).toHaveLength(0);
    recorder.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(ids(store.events)).toEqual(range(0, 5));
  });

  it('keeps order across batches and failed writes, and writes one batch at a time', async () => {
    const { store, recorder } = setup({ batchSize: 10 });
    store.latencyMs = 30;
    store.failNext(2);
    recorder.start();
    for (let index = 0; index < 95; index += 1) {
      recorder.record(fakeUsageEvent(index));
      if (index % 20 === 0) await vi.advanceTimersByTimeAsync(7);
    }
    const flushed = recorder.flush().catch(() => undefined);
    await vi.advanceTimersByTimeAsync(20_000);
    await flushed;
    expect(ids(store.events)).toEqual(range(0, 95));
    expect(store.maxConcurrentWrites).toBe(1);
    expect(Math.max(...store.recordUsageCalls.map((batch) => batch.length))).toBeLessThanOrEqual(10);
  });

  it('stores the Asia/Shanghai day of receivedAt and receivedAt as a Date', async () => {
    const { store, recorder } = setup();
    const before = Date.parse('2026-03-01T15:59:59.999Z');
    const after = Date.parse('2026-03-01T16:00:00.000Z');
    recorder.record(fakeUsageEvent(0, { receivedAt: before }));
    recorder.record(fakeUsageEvent(1, { receivedAt: after }));
    recorder.record(fakeUsageEvent(2, { receivedAt: before }));
    await recorder.flush();
    expect(store.events.map((event) => event.day)).toEqual(['2026-03-01', '2026-03-02', '2026-03-01']);
    expect(store.events[0]?.receivedAt).toEqual(new Date(before));
    expect(store.events[1]?.receivedAt).toEqual(new Date(after));
    // The column is an integer; sub-millisecond latency is rounded.
    expect(store.events[0]?.latencyMs).toBe(121);
  });
});

describe('UsageRecorder outages', () => {
  it('loses nothing during an outage and writes every event exactly once after', async () => {
    const { store, logger, recorder } = setup({ batchSize: 10, repeatLogIntervalMs: 10_000 });
    store.goDown();
    recorder.start();
    for (let index = 0; index < 50; index += 1) {
      recorder.record(fakeUsageEvent(index));
      await vi.advanceTimersByTimeAsync(100);
    }
    await vi.advanceTimersByTimeAsync(5_000);
    expect(recorder.stats()).toMatchObject({ buffered: 50, written: 0, failing: true });
    // Backoff, not a retry storm: 10 s of outage is a handful of attempts.
    expect(store.recordUsageCalls.length).toBeLessThan(15);
    const failures = errorsMatching(logger.calls, 'usage store write failed');
    expect(failures).toHaveLength(1);
    expect(errorsMatching(logger.calls, 'still failing').length).toBeLessThanOrEqual(1);

    store.recover();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(ids(store.events)).toEqual(range(0, 50));
    expect(new Set(ids(store.events)).size).toBe(50);
    expect(recorder.stats()).toEqual({ buffered: 0, written: 50, dropped: 0, lost: 0, failing: false });
    const recovered = logger.calls.filter((call) => call.message.includes('recovered'));
    expect(recovered).toHaveLength(1);
    expect(recovered[0]?.details).toMatchObject({ written: 50, dropped: 0 });
    expect(await store.countUsageEvents()).toBe(50);
    const daily = await store.dailyUsage('acct_1', '2026-03-01', '2026-03-01');
    expect(daily.reduce((sum, row) => sum + row.requests, 0)).toBe(50);
  });

  it('a write that committed but failed (lost acknowledgement) is retried with the same ids and counted once', async () => {
    const { store, logger, recorder } = setup({ batchSize: 10 });
    store.failAfterCommitNext(1);
    recorder.start();
    for (let index = 0; index < 25; index += 1) recorder.record(fakeUsageEvent(index));
    await vi.advanceTimersByTimeAsync(5_000);

    expect(errorsMatching(logger.calls, 'usage store write failed')).toHaveLength(1);
    const [first, retry] = store.recordUsageCalls;
    expect(retry?.map((event) => event.eventId)).toEqual(first?.map((event) => event.eventId));
    expect(new Set(store.recordUsageCalls.flat().map((event) => event.eventId)).size).toBe(25);
    expect(ids(store.events)).toEqual(range(0, 25));
    expect(recorder.stats()).toEqual({ buffered: 0, written: 25, dropped: 0, lost: 0, failing: false });
    const daily = await store.dailyUsage('acct_1', '2026-03-01', '2026-03-01');
    const expected = Array.from({ length: 25 }, (_, index) => fakeUsageEvent(index));
    expect(daily.reduce((sum, row) => sum + row.requests, 0)).toBe(25);
    expect(daily.reduce((sum, row) => sum + row.promptTokens, 0)).toBe(expected.reduce((sum, event) => sum + event.promptTokens, 0));
    expect(daily.reduce((sum, row) => sum + dailyCostFemtoUsd(row), 0n)).toBe(
      expected.reduce((sum, event) => sum + event.costFemtoUsd, 0n),
    );
  });

  it('gives every event its own id from the injected generator', async () => {
    let next = 0;
    const { store, recorder } = setup({ eventId: () => `evt_${(next += 1)}` });
    for (let index = 0; index < 3; index += 1) recorder.record(fakeUsageEvent(index));
    await recorder.flush();
    expect(store.events.map((event) => event.eventId)).toEqual(['evt_1', 'evt_2', 'evt_3']);
  });

  it('retries with growing delays capped at maxDelayMs', async () => {
    const { store, recorder } = setup({ retry: { initialDelayMs: 100, maxDelayMs: 800 } });
    store.goDown();
    recorder.start();
    recorder.record(fakeUsageEvent(0));
    const attemptTimes: number[] = [];
    const original = store.recordUsage.bind(store);
    store.recordUsage = (events) => {
      attemptTimes.push(Date.now());
      return original(events);
    };
    await vi.advanceTimersByTimeAsync(6_000);
    const gaps = attemptTimes.slice(1).map((time, index) => time - (attemptTimes[index] ?? 0));
    // random() = 0.5: three quarters of 100, 200, 400, 800, then 800 again.
    expect(gaps.slice(0, 6)).toEqual([75, 150, 300, 600, 600, 600]);
  });

  it('drops the oldest events beyond maxBufferedEvents, counts and logs them', async () => {
    const { store, logger, recorder } = setup({ batchSize: 5, maxBufferedEvents: 10 });
    store.goDown();
    recorder.start();
    for (let index = 0; index < 25; index += 1) recorder.record(fakeUsageEvent(index));
    expect(recorder.stats()).toMatchObject({ buffered: 10, dropped: 15 });
    const drops = errorsMatching(logger.calls, 'usage buffer full');
    expect(drops).toHaveLength(1);
    expect(drops[0]?.details).toMatchObject({ dropped: 1, maxBufferedEvents: 10 });

    store.recover();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ids(store.events)).toEqual(range(15, 25));
    expect(recorder.stats()).toMatchObject({ buffered: 0, written: 10, dropped: 15 });
    // The drops after the first log line are reported in one line, not one per event.
    expect(errorsMatching(logger.calls, 'usage buffer full')[1]?.details).toMatchObject({
      dropped: 14,
      droppedTotal: 15,
    });
  });

  it('never drops the batch being written; drops the oldest queued behind it', async () => {
    const { store, recorder } = setup({ batchSize: 5, maxBufferedEvents: 10 });
    store.pause();
    recorder.start();
    for (let index = 0; index < 5; index += 1) recorder.record(fakeUsageEvent(index));
    await vi.advanceTimersByTimeAsync(0);
    expect(store.writesInProgress).toBe(1);
    for (let index = 5; index < 17; index += 1) recorder.record(fakeUsageEvent(index));
    expect(recorder.stats()).toMatchObject({ buffered: 10, dropped: 7 });
    store.resume();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(ids(store.events)).toEqual([...range(0, 5), ...range(12, 17)]);
  });

  it('record() never throws: not when the store throws synchronously, not for invalid events', async () => {
    const { store, logger, recorder } = setup({ batchSize: 2 });
    store.throwSynchronously = true;
    recorder.start();
    for (let index = 0; index < 5; index += 1) {
      expect(() => recorder.record(fakeUsageEvent(index))).not.toThrow();
    }
    await vi.advanceTimersByTimeAsync(3_000);
    await expect(recorder.flush()).rejects.toThrow('store threw synchronously');
    expect(recorder.stats()).toMatchObject({ buffered: 5, written: 0, failing: true });

    expect(() => recorder.record(fakeUsageEvent(90, { receivedAt: Number.NaN }))).not.toThrow();
    expect(() => recorder.record(fakeUsageEvent(91, { costFemtoUsd: -1n }))).not.toThrow();
    expect(() => recorder.record(fakeUsageEvent(92, { promptTokens: 1.5 }))).not.toThrow();
    expect(() => recorder.record(null as unknown as ReturnType<typeof fakeUsageEvent>)).not.toThrow();
    expect(recorder.stats()).toMatchObject({ buffered: 5, dropped: 4 });
    expect(errorsMatching(logger.calls, 'usage event dropped')).toHaveLength(4);

    store.throwSynchronously = false;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ids(store.events)).toEqual(range(0, 5));
  });

  it('record() never throws even when the logger does', () => {
    const store = new FakeStore();
    const throwing = () => {
      throw new Error('logger broke');
    };
    const recorder = new UsageRecorder(store, {
      flushIntervalMs: 1000,
      batchSize: 10,
      maxBufferedEvents: 10,
      logger: { warn: throwing, error: throwing },
    });
    expect(() => recorder.record(fakeUsageEvent(0, { receivedAt: Number.NaN }))).not.toThrow();
    for (let index = 0; index < 20; index += 1) {
      expect(() => recorder.record(fakeUsageEvent(index))).not.toThrow();
    }
  });
});

describe('UsageRecorder flush and drain', () => {
  it('flush() writes what is buffered once, rejects on failure and keeps the events', async () => {
    const { store, recorder } = setup({ batchSize: 4 });
    for (let index = 0; index < 10; index += 1) recorder.record(fakeUsageEvent(index));
    store.failNext(1);
    await expect(recorder.flush()).rejects.toThrow('database is down');
    expect(recorder.stats()).toMatchObject({ buffered: 10, written: 0, failing: true });
    await recorder.flush();
    expect(store.recordUsageCalls.map((batch) => batch.length)).toEqual([4, 4, 4, 2]);
    expect(ids(store.events)).toEqual(range(0, 10));
    expect(recorder.stats()).toMatchObject({ buffered: 0, written: 10, failing: false });
  });

  it('drain() writes everything; events recorded after it wait for the next drain', async () => {
    const { store, recorder } = setup({ batchSize: 10 });
    recorder.start();
    for (let index = 0; index < 25; index += 1) recorder.record(fakeUsageEvent(index));
    await expect(recorder.drain(1_000)).resolves.toEqual({ written: 25, lost: 0 });
    expect(ids(store.events)).toEqual(range(0, 25));

    for (let index = 25; index < 28; index += 1) recorder.record(fakeUsageEvent(index));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(store.events).toHaveLength(25);
    await expect(recorder.drain(1_000)).resolves.toEqual({ written: 3, lost: 0 });
    expect(ids(store.events)).toEqual(range(0, 28));
  });

  it('drain() retries until the store comes back within the deadline', async () => {
    const { store, recorder } = setup({ batchSize: 10 });
    store.goDown();
    recorder.start();
    for (let index = 0; index < 25; index += 1) recorder.record(fakeUsageEvent(index));
    const drained = recorder.drain(10_000);
    await vi.advanceTimersByTimeAsync(2_000);
    store.recover();
    await vi.advanceTimersByTimeAsync(5_000);
    await expect(drained).resolves.toEqual({ written: 25, lost: 0 });
    expect(ids(store.events)).toEqual(range(0, 25));
  });

  it('drain() reports and logs what the store, down past the deadline, did not take', async () => {
    const { store, logger, recorder } = setup({ batchSize: 10 });
    recorder.start();
    for (let index = 0; index < 5; index += 1) recorder.record(fakeUsageEvent(index));
    await vi.advanceTimersByTimeAsync(1_000);
    store.goDown();
    for (let index = 5; index < 25; index += 1) recorder.record(fakeUsageEvent(index));
    const drained = recorder.drain(3_000);
    await vi.advanceTimersByTimeAsync(3_000);
    await expect(drained).resolves.toEqual({ written: 0, lost: 20 });
    expect(recorder.stats()).toMatchObject({ buffered: 0, written: 5, lost: 20 });
    expect(errorsMatching(logger.calls, 'lost')[0]?.details).toMatchObject({ lost: 20 });
    const attempts = store.recordUsageCalls.length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(store.recordUsageCalls).toHaveLength(attempts);
  });

  it('drain() gives up on a hung write at the deadline and never writes its events twice', async () => {
    const { store, recorder } = setup({ batchSize: 10 });
    for (let index = 0; index < 15; index += 1) recorder.record(fakeUsageEvent(index));
    store.pause();
    const drained = recorder.drain(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(drained).resolves.toEqual({ written: 0, lost: 15 });
    store.resume();
    await vi.advanceTimersByTimeAsync(1_000);
    // The hung batch did commit in the end: the stats say so, and nothing was retried.
    expect(ids(store.events)).toEqual(range(0, 10));
    expect(recorder.stats()).toMatchObject({ buffered: 0, written: 10, lost: 5 });
    await expect(recorder.drain(1_000)).resolves.toEqual({ written: 0, lost: 0 });
    expect(store.recordUsageCalls).toHaveLength(1);
  });
});

describe('UsageRecorder options', () => {
  it('refuses options that cannot work', () => {
    const store = new FakeStore();
    const logger = recordingLogger();
    expect(() => new UsageRecorder(store, { flushIntervalMs: 2000, batchSize: 10, maxBufferedEvents: 10, logger })).toThrow(RangeError);
    expect(() => new UsageRecorder(store, { flushIntervalMs: 100, batchSize: 0, maxBufferedEvents: 10, logger })).toThrow(RangeError);
    expect(() => new UsageRecorder(store, { flushIntervalMs: 100, batchSize: 10, maxBufferedEvents: 5, logger })).toThrow(RangeError);
  });
});
