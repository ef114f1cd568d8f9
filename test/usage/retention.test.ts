import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { startRetention } from '../../server/usage/retention';
import { FakeStore } from '../helpers/fake-store';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

it('deletes raw events older than usage.retention_days, a minute after start and then periodically', async () => {
  const store = new FakeStore();
  const cutoffs: Date[] = [];
  store.pruneUsageEvents = async (before: Date) => {
    cutoffs.push(before);
    return 3;
  };
  const now = Date.UTC(2026, 10, 21);
  const pruned: number[] = [];
  const stop = startRetention(store, {
    retentionDays: 400,
    now: () => now,
    onError: () => undefined,
    onPruned: (count) => pruned.push(count),
    intervalMs: 3_600_000,
  });
  await vi.advanceTimersByTimeAsync(59_000);
  expect(cutoffs).toHaveLength(0);
  await vi.advanceTimersByTimeAsync(1_000);
  expect(cutoffs).toEqual([new Date(now - 400 * 86_400_000)]);
  await vi.advanceTimersByTimeAsync(3_600_000);
  expect(cutoffs).toHaveLength(2);
  expect(pruned).toEqual([3, 3]);
  stop();
  await vi.advanceTimersByTimeAsync(10 * 3_600_000);
  expect(cutoffs).toHaveLength(2);
});

it('a failing prune is reported, not thrown', async () => {
  const store = new FakeStore();
  store.pruneUsageEvents = async () => {
    throw new Error('database down');
  };
  const errors: unknown[] = [];
  const stop = startRetention(store, { retentionDays: 1, now: Date.now, onError: (error) => errors.push(error) });
  await vi.advanceTimersByTimeAsync(60_000);
  expect(errors).toHaveLength(1);
  stop();
});
