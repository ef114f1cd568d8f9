import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyLimiter } from '../../server/rate-limit/key-limiter';
import { createMemoryRateLimitStore } from '../../server/rate-limit/memory-store';
import { createRedisRateLimitStore } from '../../server/rate-limit/redis-store';
import { createTestRedis, deleteKeys, isRedisReachable, uniquePrefix } from './redis-test-client';

/**
 * The usage route's limits (docs/rate-limits.md): at most 30 per usage key and 120 per
 * client IP in ANY 60 seconds. A refilling bucket would let a client that spent its 30 at
 * once through again half a minute later; a sliding window does not.
 */
const LIMITS = { perKey: 30, perIp: 120 };

describe('usage limits as sliding windows (memory store)', () => {
  it('30 per key in any 60 s: none more until the first hit is 60 s old, then as many as have left', async () => {
    const clock = { now: 1_700_000_000_000 };
    const limiter = createKeyLimiter(createMemoryRateLimitStore({ now: () => clock.now }));
    for (let index = 0; index < 30; index += 1) expect((await limiter.checkUsage('uk1', '10.0.0.1', LIMITS)).allowed).toBe(true);
    const refused = await limiter.checkUsage('uk1', '10.0.0.1', LIMITS);
    expect(refused).toMatchObject({ allowed: false, which: 'key', headers: { 'retry-after': '60' } });
    // Half a window later a bucket would have refilled 15: the window still holds all 30.
    clock.now += 30_000;
    expect(await limiter.checkUsage('uk1', '10.0.0.1', LIMITS)).toMatchObject({ allowed: false, headers: { 'retry-after': '30' } });
    clock.now += 29_999;
    expect((await limiter.checkUsage('uk1', '10.0.0.1', LIMITS)).allowed).toBe(false);
    clock.now += 1;
    for (let index = 0; index < 30; index += 1) expect((await limiter.checkUsage('uk1', '10.0.0.1', LIMITS)).allowed).toBe(true);
    expect((await limiter.checkUsage('uk1', '10.0.0.1', LIMITS)).allowed).toBe(false);
  });

  it('120 per client IP across keys; a refused request counts in neither window', async () => {
    const clock = { now: 1_700_000_000_000 };
    const limiter = createKeyLimiter(createMemoryRateLimitStore({ now: () => clock.now }));
    for (let index = 0; index < 120; index += 1) {
      expect((await limiter.checkUsage(`key-${index % 4}`, '10.0.0.2', LIMITS)).allowed).toBe(true);
      clock.now += 100;
    }
    expect(await limiter.checkUsage('key-9', '10.0.0.2', LIMITS)).toMatchObject({
      allowed: false,
      which: 'ip',
      headers: { 'retry-after': '48' },
    });
    // Another IP with a fresh key is unaffected; key-9 was not charged by its refusal.
    expect((await limiter.checkUsage('key-9', '10.0.0.3', LIMITS)).allowed).toBe(true);
    clock.now += 48_000;
    expect((await limiter.checkUsage('key-10', '10.0.0.2', LIMITS)).allowed).toBe(true);
  });
});

const redisAvailable = await isRedisReachable();

describe.skipIf(!redisAvailable)('usage limits as sliding windows (Redis, two instances)', () => {
  const prefix = uniquePrefix();
  let clients: Redis[] = [];
  beforeAll(async () => {
    clients = [createTestRedis(), createTestRedis()];
    await Promise.all(clients.map((client) => client.connect()));
  });
  afterAll(async () => {
    if (clients[0]) await deleteKeys(clients[0], prefix);
    await Promise.all(clients.map((client) => client.quit()));
  });

  it('30 per key shared exactly by two instances, concurrently; the 31st is refused for about a minute', async () => {
    const [first, second] = clients.map((redis) => createKeyLimiter(createRedisRateLimitStore({ redis, prefix })));
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        ((index % 2 === 0 ? first : second) as ReturnType<typeof createKeyLimiter>).checkUsage('shared', '10.1.0.1', LIMITS),
      ),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(30);
    const refused = results.find((result) => !result.allowed);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    expect(Number(refused?.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('a window that is full stays full until its oldest hits leave it (no refill in between)', async () => {
    const store = createRedisRateLimitStore({ redis: clients[1] as Redis, prefix });
    const window = { id: 'short', limit: 5, windowMs: 1_000 };
    for (let index = 0; index < 5; index += 1) expect((await store.hit([window])).allowed).toBe(true);
    await sleep(600);
    // A bucket of 5 per second would hold 3 again by now.
    const refused = await store.hit([window]);
    expect(refused.allowed).toBe(false);
    expect(refused.windows[0]?.retryAfterMs).toBeGreaterThan(0);
    expect(refused.windows[0]?.retryAfterMs).toBeLessThanOrEqual(400);
    await sleep((refused.windows[0]?.retryAfterMs ?? 0) + 50);
    expect(await store.hit([window])).toMatchObject({ allowed: true, windows: [{ limit: 5, retryAfterMs: 0 }] });
  });
});
