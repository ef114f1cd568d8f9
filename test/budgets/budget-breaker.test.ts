import { describe, expect, it } from 'vitest';
import { createMemoryBudgetStore, type BudgetCounterRequest, type BudgetStore } from '../../server/budgets/budget-store';
import { withBudgetFallback } from '../../server/budgets/fallback-budget-store';
import { GatewayError } from '../../server/errors/gateway-error';
import { createMemoryRateLimitStore } from '../../server/rate-limit/memory-store';
import { createResilientRateLimitStore } from '../../server/rate-limit/resilient-store';
import type { BucketRequest, RateLimitStore } from '../../server/rate-limit/types';
import { createSharedStoreBreaker, type SharedStoreStatus } from '../../server/redis/shared-store-breaker';
import { switchableGate } from '../helpers/switchable-gate';

/*
 * docs/rate-limits.md, "Several instances: Redis": the rate-limit buckets and the spend-budget
 * counters share one breaker per instance. Whichever store finds Redis failing or hung, both
 * answer by `limits.redis_failure` at once, neither calls Redis again until a probe (at most
 * one per interval, from either store), and a probe that succeeds makes both shared again.
 */

function setup(policy: 'open' | 'closed') {
  const clock = { now: 1_700_000_000_000 };
  const changes: SharedStoreStatus[] = [];
  const breaker = createSharedStoreBreaker({
    policy,
    timeoutMs: 50,
    probeIntervalMs: 1_000,
    now: () => clock.now,
    onStateChange: (state) => changes.push(state),
  });

  const rateRedis = switchableGate();
  const sharedBuckets = createMemoryRateLimitStore();
  const ratePrimary: RateLimitStore = {
    take: (requests) => rateRedis.gate(() => sharedBuckets.take(requests)),
    hit: (windows) => rateRedis.gate(() => sharedBuckets.hit(windows)),
    adjust: (shape, delta) => rateRedis.gate(() => sharedBuckets.adjust(shape, delta)),
    close: () => sharedBuckets.close(),
  };
  const limits = createResilientRateLimitStore({ primary: ratePrimary, breaker });

  const budgetRedis = switchableGate();
  // The counters every instance shares (Redis), and this instance's own (memory).
  const sharedCounters = createMemoryBudgetStore(() => clock.now);
  const localCounters = createMemoryBudgetStore(() => clock.now);
  const budgetPrimary: BudgetStore = {
    reserve: (counters) => budgetRedis.gate(() => sharedCounters.reserve(counters)),
    settle: (id, delta, settled) => budgetRedis.gate(() => sharedCounters.settle(id, delta, settled)),
    firstTime: (id, ttlMs) => budgetRedis.gate(() => sharedCounters.firstTime(id, ttlMs)),
    close: () => sharedCounters.close(),
  };
  const budgets = withBudgetFallback(budgetPrimary, localCounters, breaker);
  return { clock, changes, breaker, limits, rateRedis: rateRedis.control, budgets, budgetRedis: budgetRedis.control, sharedCounters };
}

const bucket = (id: string): BucketRequest => ({ id, capacity: 100, windowMs: 60_000, cost: 1 });
/** A budget counter of 100 femto-USD reserving `cost`, seeded at 0 from the ledger. */
const counter = (id: string, cost: bigint): BudgetCounterRequest => ({ id, amount: 100n, cost, ttlMs: 60_000, seed: 0n });

describe('one breaker for the rate limits and the spend budgets', () => {
  it('open: a failing budget store is answered from this instance, and the rate limits stop calling Redis too', async () => {
    const { clock, changes, breaker, limits, rateRedis, budgets, budgetRedis, sharedCounters } = setup('open');
    budgetRedis.mode = 'fail';
    expect(await budgets.reserve([counter('key-a', 10n)])).toEqual({ kind: 'reserved', totals: [10n] });
    expect(breaker.status()).toBe('down');
    expect(changes).toEqual(['down']);
    expect(await budgets.reserve([counter('key-a', 10n)])).toEqual({ kind: 'reserved', totals: [20n] });
    expect(await budgets.settle('key-a', -5n, 5n)).toBe(5n);
    expect(budgetRedis.calls).toBe(1);
    // The rate limits know too: per-instance buckets, Redis untouched.
    expect((await limits.take([bucket('key-a')])).allowed).toBe(true);
    expect(rateRedis.calls).toBe(0);
    expect(limits.status()).toBe('down');

    // The probe comes from the rate limits (the first call of a model request) and succeeds.
    budgetRedis.mode = 'ok';
    clock.now += 1_000;
    expect((await limits.take([bucket('key-a')])).allowed).toBe(true);
    expect(rateRedis.calls).toBe(1);
    expect(breaker.status()).toBe('ok');
    expect(changes).toEqual(['down', 'ok']);
    // The budgets are shared again: the reservation lands in the shared counter.
    expect(await budgets.reserve([counter('key-a', 10n)])).toEqual({ kind: 'reserved', totals: [10n] });
    expect(budgetRedis.calls).toBe(2);
    expect(await sharedCounters.reserve([counter('key-a', 0n)])).toEqual({ kind: 'reserved', totals: [10n] });
  });

  it('tripped by the rate limits: budget calls do not touch Redis until a probe, and a probe that succeeds restores shared budgets', async () => {
    const { clock, changes, breaker, limits, rateRedis, budgets, budgetRedis } = setup('open');
    rateRedis.mode = 'fail';
    expect((await limits.take([bucket('key-b')])).allowed).toBe(true);
    expect(breaker.status()).toBe('down');
    expect(await budgets.reserve([counter('key-b', 30n)])).toEqual({ kind: 'reserved', totals: [30n] });
    clock.now += 999;
    expect(await budgets.reserve([counter('key-b', 30n)])).toEqual({ kind: 'reserved', totals: [60n] });
    expect(await budgets.firstTime('key-b:alert', 60_000)).toBe(true);
    expect(budgetRedis.calls).toBe(0);

    // Redis is back; the next call after the interval is the probe, here a budget reservation.
    rateRedis.mode = 'ok';
    clock.now += 1;
    expect(await budgets.reserve([counter('key-b', 30n)])).toEqual({ kind: 'reserved', totals: [30n] });
    expect(budgetRedis.calls).toBe(1);
    expect(breaker.status()).toBe('ok');
    expect(changes).toEqual(['down', 'ok']);
    expect((await limits.take([bucket('key-b')])).allowed).toBe(true);
    expect(rateRedis.calls).toBe(2);
  });

  it('open: a hung budget store costs one timeout, then one probe at a time for both stores', async () => {
    const { clock, breaker, limits, rateRedis, budgets, budgetRedis } = setup('open');
    budgetRedis.mode = 'hang';
    const started = performance.now();
    expect(await budgets.reserve([counter('key-c', 10n)])).toEqual({ kind: 'reserved', totals: [10n] });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(breaker.status()).toBe('down');

    // Answered from memory without a call into Redis: nothing to wait for (no wall-clock bound that a busy machine could break).
    expect(await budgets.reserve([counter('key-c', 10n)])).toEqual({ kind: 'reserved', totals: [20n] });
    expect(budgetRedis.calls).toBe(1);

    // A budget probe into the still hung Redis holds the probe slot: the rate limits do not probe meanwhile.
    clock.now += 1_000;
    const probe = budgets.reserve([counter('key-c', 10n)]);
    expect((await limits.take([bucket('key-c')])).allowed).toBe(true);
    expect(rateRedis.calls).toBe(0);
    expect(await probe).toEqual({ kind: 'reserved', totals: [30n] });
    expect(budgetRedis.calls).toBe(2);
    expect(breaker.status()).toBe('down');
  });

  it('closed: budget calls are 503 rate_limiter_unavailable while Redis is down, and so are the rate limits', async () => {
    const { clock, breaker, limits, rateRedis, budgets, budgetRedis } = setup('closed');
    budgetRedis.mode = 'fail';
    const error = await budgets.reserve([counter('key-d', 10n)]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 503, type: 'server_error', code: 'rate_limiter_unavailable' });
    await expect(budgets.settle('key-d', 1n, 1n)).rejects.toMatchObject({ status: 503, code: 'rate_limiter_unavailable' });
    await expect(limits.take([bucket('key-d')])).rejects.toMatchObject({ status: 503, code: 'rate_limiter_unavailable' });
    expect(budgetRedis.calls).toBe(1);
    expect(rateRedis.calls).toBe(0);

    budgetRedis.mode = 'ok';
    clock.now += 1_000;
    expect(await budgets.reserve([counter('key-d', 10n)])).toEqual({ kind: 'reserved', totals: [10n] });
    expect(breaker.status()).toBe('ok');
  });

  it('closed: a hung budget store is 503 within about the timeout', async () => {
    const { budgets, budgetRedis } = setup('closed');
    budgetRedis.mode = 'hang';
    const started = performance.now();
    await expect(budgets.reserve([counter('key-e', 10n)])).rejects.toMatchObject({ status: 503, code: 'rate_limiter_unavailable' });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
