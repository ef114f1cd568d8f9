import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRedisRateLimitStore } from '../../server/rate-limit/redis-store';
import { RedisTurnTransaction, SETTLEMENT_WAIT_MS } from '../../server/redis/turn-transaction';
import type { BucketRequest, RateLimitStore } from '../../server/rate-limit/types';
import { createTestRedis, deleteKeys, isRedisReachable, uniquePrefix } from './redis-test-client';

const MINUTE = 60_000;
const available = await isRedisReachable();
const bucket = (id: string, capacity: number, cost = 1, windowMs = MINUTE): BucketRequest => ({ id, capacity, windowMs, cost });

// Each take and adjust sent as its own command, or queued in the turn's pipeline (as the gateway sends them).
describe.skipIf(!available).each([
  ['sent alone', false],
  ["in the turn's pipeline", true],
])('redis rate-limit store, commands %s', (_name, piped) => {
  const prefix = uniquePrefix();
  let clients: Redis[] = [];
  let store: RateLimitStore;
  const storeOn = (redis: Redis) =>
    createRedisRateLimitStore({ redis, prefix, transaction: piped ? new RedisTurnTransaction(redis) : undefined });

  beforeAll(async () => {
    clients = [createTestRedis(), createTestRedis()];
    await Promise.all(clients.map((client) => client.connect()));
    store = storeOn(clients[0] as Redis);
  });

  afterAll(async () => {
    const [first] = clients;
    if (first !== undefined) await deleteKeys(first, prefix);
    await store?.close();
    await Promise.all(clients.map((client) => client.quit()));
  });

  it('allows N then refuses the N+1th, with the state of the bucket', async () => {
    for (let index = 1; index <= 5; index += 1) {
      const result = await store.take([bucket('count', 5)]);
      expect(result.allowed).toBe(true);
      expect(result.buckets[0]).toMatchObject({ limit: 5, remaining: 5 - index, retryAfterMs: 0 });
    }
    const refused = await store.take([bucket('count', 5)]);
    expect(refused.allowed).toBe(false);
    const state = refused.buckets[0];
    expect(state).toMatchObject({ limit: 5, remaining: 0 });
    // Real time passes during the test: a few ms of refill at most.
    expect(state?.retryAfterMs).toBeGreaterThan(11_000);
    expect(state?.retryAfterMs).toBeLessThanOrEqual(12_000);
    expect(state?.resetMs).toBeGreaterThan(59_000);
    expect(state?.resetMs).toBeLessThanOrEqual(MINUTE);
  });

  it('stores {tokens, ts} with an expiry of about two windows, and deletes a full bucket', async () => {
    await store.take([bucket('ttl', 5)]);
    const key = `${prefix}ttl`;
    const redis = clients[0] as Redis;
    expect(Object.keys(await redis.hgetall(key)).sort()).toEqual(['tokens', 'ts']);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(MINUTE);
    expect(ttl).toBeLessThanOrEqual(2 * MINUTE);
    await store.adjust({ id: 'ttl', capacity: 5, windowMs: MINUTE }, 1);
    expect(await redis.exists(key)).toBe(0);
  });

  it('refills over time and is full again after one window', async () => {
    const windowMs = 400;
    expect((await store.take([bucket('refill', 2, 2, windowMs)])).allowed).toBe(true);
    const refused = await store.take([bucket('refill', 2, 1, windowMs)]);
    expect(refused.allowed).toBe(false);
    await sleep((refused.buckets[0]?.retryAfterMs ?? 0) + 20);
    expect((await store.take([bucket('refill', 2, 1, windowMs)])).allowed).toBe(true);
    await sleep(windowMs + 20);
    const full = await store.take([bucket('refill', 2, 2, windowMs)]);
    expect(full.allowed).toBe(true);
  });

  it('takes from all buckets or from none', async () => {
    expect((await store.take([bucket('all-requests', 10), bucket('all-tokens', 100, 80)])).allowed).toBe(true);
    const refused = await store.take([bucket('all-requests', 10), bucket('all-tokens', 100, 30)]);
    expect(refused.allowed).toBe(false);
    expect(refused.buckets[0]).toMatchObject({ remaining: 9, retryAfterMs: 0 });
    expect(refused.buckets[1]?.remaining).toBe(20);
    expect(refused.buckets[1]?.retryAfterMs).toBeGreaterThan(5_900);
    expect(refused.buckets[1]?.retryAfterMs).toBeLessThanOrEqual(6_000);
    const next = await store.take([bucket('all-requests', 10), bucket('all-tokens', 100, 20)]);
    expect(next.allowed).toBe(true);
    expect(next.buckets.map((state) => state.remaining)).toEqual([8, 0]);
  });

  it('adjust refunds up to capacity and charges into debt', async () => {
    const shape = { id: 'adjust', capacity: 100, windowMs: MINUTE };
    await store.take([bucket('adjust', 100, 80)]);
    await store.adjust(shape, 500);
    expect((await store.take([bucket('adjust', 100, 100)])).allowed).toBe(true);
    await store.adjust(shape, 500);
    await store.adjust(shape, -150);
    const inDebt = await store.take([bucket('adjust', 100, 1)]);
    expect(inDebt.allowed).toBe(false);
    expect(inDebt.buckets[0]?.remaining).toBe(-50);
    expect(inDebt.buckets[0]?.retryAfterMs).toBeGreaterThan(30_000);
    expect(inDebt.buckets[0]?.retryAfterMs).toBeLessThanOrEqual(30_600);
    // The debt outlives two windows' worth of expiry: 90 s to full + one window.
    expect(await (clients[0] as Redis).pttl(`${prefix}adjust`)).toBeGreaterThan(2 * MINUTE);
  });

  it('refuses a cost above capacity with a full window, charging nothing', async () => {
    const result = await store.take([bucket('big-requests', 10), bucket('big-tokens', 100, 101)]);
    expect(result).toEqual({
      allowed: false,
      buckets: [
        { limit: 10, remaining: 10, resetMs: 0, retryAfterMs: 0 },
        { limit: 100, remaining: 100, resetMs: 0, retryAfterMs: MINUTE },
      ],
    });
    expect(await (clients[0] as Redis).exists(`${prefix}big-requests`)).toBe(0);
  });

  it('rejects malformed requests before calling Redis', async () => {
    await expect(store.take([bucket('dup', 5), bucket('dup', 5)])).rejects.toThrow(RangeError);
    await expect(store.adjust({ id: 'x', capacity: 5, windowMs: MINUTE }, 0.5)).rejects.toThrow(RangeError);
  });

  it('is exact under concurrency across two instances: 200 parallel takes on 50 -> 50 allowed', async () => {
    const stores = clients.map(storeOn);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, index) => (stores[index % 2] as RateLimitStore).take([bucket('race', 50, 1, 10 * MINUTE)])),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(50);
    const remaining = results.filter((result) => result.allowed).map((result) => result.buckets[0]?.remaining);
    expect(new Set(remaining).size).toBe(50);
  });

  it.runIf(piped)("a settlement waits for the next reservation's write and goes ahead of it", async () => {
    const redis = clients[0] as Redis;
    const transaction = new RedisTurnTransaction(redis);
    const own = createRedisRateLimitStore({ redis, prefix, transaction });
    await own.take([bucket('ride', 100, 80)]);
    const sent = vi.spyOn(redis, 'sendCommand');
    const settled = own.adjust({ id: 'ride', capacity: 100, windowMs: MINUTE }, 30);
    await new Promise((resolve) => setImmediate(resolve));
    const next = await own.take([bucket('ride', 100, 1)]);
    await settled;
    // The settlement and the reservation as one command: the turn's batch script.
    expect(sent).toHaveBeenCalledTimes(1);
    sent.mockRestore();
    expect(next.buckets[0]?.remaining).toBe(49);
  });

  it.runIf(piped)('a settlement with no reservation after it is written within SETTLEMENT_WAIT_MS', async () => {
    const redis = clients[0] as Redis;
    const own = createRedisRateLimitStore({ redis, prefix, transaction: new RedisTurnTransaction(redis) });
    await own.take([bucket('alone', 100, 80)]);
    const started = performance.now();
    await own.adjust({ id: 'alone', capacity: 100, windowMs: MINUTE }, 30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(SETTLEMENT_WAIT_MS - 1);
    expect((await store.take([bucket('alone', 100, 1)])).buckets[0]?.remaining).toBe(49);
  });

  it.runIf(piped)("a call that fails in the turn's batch fails alone; the others of the turn apply", async () => {
    await (clients[0] as Redis).set(`${prefix}not-a-bucket`, 'text');
    const [failed, passed] = await Promise.allSettled([store.take([bucket('not-a-bucket', 5)]), store.take([bucket('beside-it', 5)])]);
    expect(failed.status).toBe('rejected');
    expect(String((failed as PromiseRejectedResult).reason)).toContain('WRONGTYPE');
    expect(passed).toEqual({
      status: 'fulfilled',
      value: { allowed: true, buckets: [{ limit: 5, remaining: 4, resetMs: 12_000, retryAfterMs: 0 }] },
    });
  });

  it('survives a script flush (EVALSHA falls back to EVAL)', async () => {
    await (clients[0] as Redis).script('FLUSH');
    expect((await store.take([bucket('flush', 5)])).allowed).toBe(true);
    await (clients[0] as Redis).script('FLUSH');
    await store.adjust({ id: 'flush', capacity: 5, windowMs: MINUTE }, -2);
    expect((await store.take([bucket('flush', 5)])).buckets[0]?.remaining).toBe(1);
  });
});

describe.skipIf(!available)("the turn's batch script", () => {
  let redis: Redis;

  beforeAll(async () => {
    redis = createTestRedis();
    await redis.connect();
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('gives each call its own keys and its arguments as their text, empty ones included', async () => {
    const transaction = new RedisTurnTransaction(redis);
    transaction.defineScript('echo', 'return { KEYS, ARGV }');
    const replies = await Promise.all([
      transaction.script('echo', ['a', 'b'], [1, '', 'two words', 2.5, -3]),
      transaction.script('echo', [], []),
      transaction.script('echo', ['c'], ['']),
    ]);
    expect(replies).toEqual([
      [
        ['a', 'b'],
        ['1', '', 'two words', '2.5', '-3'],
      ],
      [[], []],
      [['c'], ['']],
    ]);
  });

  it('refuses an argument holding the field separator, the turn going on without it', async () => {
    const transaction = new RedisTurnTransaction(redis);
    transaction.defineScript('echo', 'return ARGV');
    const [refused, passed] = await Promise.allSettled([
      transaction.script('echo', [], ['one\ntwo']),
      transaction.script('echo', [], ['one']),
    ]);
    expect(refused.status).toBe('rejected');
    expect(passed).toEqual({ status: 'fulfilled', value: ['one'] });
    expect(() => transaction.defineScript('two\nlines', 'return 1')).toThrow('field separator');
  });
});
