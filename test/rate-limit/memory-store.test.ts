import { describe, expect, it } from 'vitest';
import { createMemoryRateLimitStore } from '../../server/rate-limit/memory-store';
import type { BucketRequest } from '../../server/rate-limit/types';

const MINUTE = 60_000;

function setup() {
  const clock = { now: 1_700_000_000_000 };
  const store = createMemoryRateLimitStore({ now: () => clock.now });
  return { clock, store };
}

const bucket = (id: string, capacity: number, cost = 1, windowMs = MINUTE): BucketRequest => ({ id, capacity, windowMs, cost });

describe('memory rate-limit store', () => {
  it('allows N then refuses the N+1th, with the state of the bucket', async () => {
    const { store } = setup();
    for (let index = 1; index <= 5; index += 1) {
      const result = await store.take([bucket('a', 5)]);
      expect(result.allowed).toBe(true);
      expect(result.buckets[0]).toEqual({ limit: 5, remaining: 5 - index, resetMs: index * 12_000, retryAfterMs: 0 });
    }
    const refused = await store.take([bucket('a', 5)]);
    expect(refused).toEqual({ allowed: false, buckets: [{ limit: 5, remaining: 0, resetMs: MINUTE, retryAfterMs: 12_000 }] });
  });

  it('refills continuously', async () => {
    const { clock, store } = setup();
    for (let index = 0; index < 5; index += 1) await store.take([bucket('a', 5)]);
    clock.now += 11_999;
    const early = await store.take([bucket('a', 5)]);
    expect(early.allowed).toBe(false);
    expect(early.buckets[0]?.retryAfterMs).toBe(1);
    clock.now += 1;
    const onTime = await store.take([bucket('a', 5)]);
    expect(onTime.allowed).toBe(true);
    expect(onTime.buckets[0]?.remaining).toBe(0);
  });

  it('is full again one window after being emptied, and forgets the bucket', async () => {
    const { clock, store } = setup();
    await store.take([bucket('a', 5, 5)]);
    expect(store.size()).toBe(1);
    clock.now += MINUTE;
    const result = await store.take([bucket('a', 5, 5)]);
    expect(result.allowed).toBe(true);
    expect(result.buckets[0]?.remaining).toBe(0);
    clock.now += MINUTE;
    await store.take([bucket('other', 5, 0)]);
    expect(store.size()).toBe(0);
  });

  it('takes from all buckets or from none', async () => {
    const { store } = setup();
    const first = await store.take([bucket('requests', 10), bucket('tokens', 100, 80)]);
    expect(first.allowed).toBe(true);
    const refused = await store.take([bucket('requests', 10), bucket('tokens', 100, 30)]);
    expect(refused.allowed).toBe(false);
    expect(refused.buckets[0]).toMatchObject({ remaining: 9, retryAfterMs: 0 });
    // 10 tokens missing at 100 per minute: 6 s.
    expect(refused.buckets[1]).toMatchObject({ remaining: 20, retryAfterMs: 6_000 });
    const next = await store.take([bucket('requests', 10), bucket('tokens', 100, 20)]);
    expect(next.allowed).toBe(true);
    expect(next.buckets.map((state) => state.remaining)).toEqual([8, 0]);
  });

  it('adjust refunds up to capacity and charges into debt', async () => {
    const { store } = setup();
    const shape = { id: 'tokens', capacity: 100, windowMs: MINUTE };
    await store.take([bucket('tokens', 100, 80)]);
    await store.adjust(shape, 500);
    expect((await store.take([bucket('tokens', 100, 100)])).allowed).toBe(true);
    expect((await store.take([bucket('tokens', 100, 1)])).allowed).toBe(false);

    await store.adjust(shape, 500);
    await store.adjust(shape, -150);
    const inDebt = await store.take([bucket('tokens', 100, 1)]);
    // -50 tokens: 51 tokens to refill at 100 per minute before 1 fits; 150 before full.
    expect(inDebt).toEqual({ allowed: false, buckets: [{ limit: 100, remaining: -50, resetMs: 90_000, retryAfterMs: 30_600 }] });
  });

  it('adjust on an untouched bucket charges from full', async () => {
    const { store } = setup();
    await store.adjust({ id: 'fresh', capacity: 10, windowMs: MINUTE }, -4);
    expect((await store.take([bucket('fresh', 10, 0)])).buckets[0]?.remaining).toBe(6);
  });

  it('refuses a cost above capacity with a full window, charging nothing', async () => {
    const { store } = setup();
    const result = await store.take([bucket('requests', 10), bucket('tokens', 100, 101)]);
    expect(result.allowed).toBe(false);
    expect(result.buckets[1]).toEqual({ limit: 100, remaining: 100, resetMs: 0, retryAfterMs: MINUTE });
    expect(result.buckets[0]).toMatchObject({ remaining: 10, retryAfterMs: 0 });
    expect(store.size()).toBe(0);
  });

  it('caps the level when the capacity is lowered', async () => {
    const { store } = setup();
    await store.take([bucket('a', 10, 2)]);
    const lowered = await store.take([bucket('a', 5, 1)]);
    expect(lowered.buckets[0]).toMatchObject({ limit: 5, remaining: 4 });
  });

  it('keeps memory bounded: refilled buckets are evicted lazily, debtors are kept', async () => {
    const { clock, store } = setup();
    for (let index = 0; index < 1_000; index += 1) await store.take([bucket(`key-${index}`, 10)]);
    await store.adjust({ id: 'debtor', capacity: 10, windowMs: MINUTE }, -100);
    expect(store.size()).toBe(1_001);
    clock.now += MINUTE;
    for (let index = 0; index < 300; index += 1) await store.take([bucket('busy', 10, 0)]);
    expect(store.size()).toBe(1);
    expect((await store.take([bucket('debtor', 10, 0)])).buckets[0]?.remaining).toBe(-80);
  });

  it('rejects malformed requests', async () => {
    const { store } = setup();
    await expect(store.take([bucket('a', 5), bucket('a', 5)])).rejects.toThrow(RangeError);
    await expect(store.take([bucket('a', 5, 1.5)])).rejects.toThrow(RangeError);
    await expect(store.take([bucket('a', 0)])).rejects.toThrow(RangeError);
    await expect(store.adjust({ id: 'a', capacity: 5, windowMs: MINUTE }, Number.NaN)).rejects.toThrow(RangeError);
  });
});
