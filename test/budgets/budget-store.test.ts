import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBudgetStore, type BudgetStore } from '../../server/budgets/budget-store';
import { createRedisBudgetStore } from '../../server/budgets/redis-budget-store';
import { RedisTurnTransaction } from '../../server/redis/turn-transaction';
import { createTestRedis, deleteKeys, isRedisReachable } from '../rate-limit/redis-test-client';

/*
 * docs/operator-controls.md, spend budgets: the counters are exact femto-USD in both stores,
 * beyond what a double holds (a million USD is 1e21 femto), refuse atomically across budgets,
 * and take negative settlements (the exact cost below the reservation).
 */
const redisAvailable = await isRedisReachable();
const redis = createTestRedis();
const prefix = `test:budgets:${randomUUID()}:`;

beforeAll(async () => {
  if (redisAvailable) await redis.connect();
});
afterAll(async () => {
  if (redisAvailable) await deleteKeys(redis, prefix);
  redis.disconnect();
});

const stores: Array<[string, () => BudgetStore, boolean]> = [
  ['memory', () => createMemoryBudgetStore(), true],
  ['redis', () => createRedisBudgetStore({ redis, prefix }), redisAvailable],
  // As the gateway sends them: in the turn's pipeline.
  [
    "redis, the turn's pipeline",
    () => createRedisBudgetStore({ redis, prefix, transaction: new RedisTurnTransaction(redis) }),
    redisAvailable,
  ],
];

describe.each(stores)('budget store (%s)', (_name, create, available) => {
  it.skipIf(!available)('seeds once, reserves all or nothing, settles exactly', async () => {
    const store = create();
    const id = (name: string) => `${randomUUID()}:${name}`;
    const big = id('big');
    const small = id('small');
    const million = 1_000_000n * 10n ** 15n;
    const seed = 123_456_789_012_345_678_901n;
    const cost = 777_000_001n;
    expect(await store.reserve([{ id: big, amount: million, cost, ttlMs: 60_000 }])).toEqual({ kind: 'unseeded' });
    const first = await store.reserve([
      { id: big, amount: million, cost, ttlMs: 60_000, seed },
      { id: small, amount: 10n ** 12n, cost, ttlMs: 60_000, seed: 0n },
    ]);
    expect(first).toEqual({ kind: 'reserved', totals: [seed + cost, cost] });
    // A later seed does not replace a counter.
    const refused = await store.reserve([
      { id: big, amount: million, cost: million, ttlMs: 60_000, seed: 0n },
      { id: small, amount: 10n ** 12n, cost: 1n, ttlMs: 60_000 },
    ]);
    expect(refused).toEqual({ kind: 'refused', totals: [seed + cost, cost] });
    // The exact cost is below the reservation: a negative delta across a nano-dollar boundary.
    const exact = 1_000_123n;
    expect(await store.settle(big, exact - cost, exact)).toBe(seed + exact);
    const after = await store.reserve([{ id: big, amount: million, cost: 0n, ttlMs: 60_000 }]);
    expect(after).toEqual({ kind: 'reserved', totals: [seed + exact] });
    expect(await store.settle(id('absent'), 1n, 1n)).toBeNull();
    expect(await store.firstTime(`${big}:alert`, 60_000)).toBe(true);
    expect(await store.firstTime(`${big}:alert`, 60_000)).toBe(false);
  });
});
