import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetStore } from '../../server/budgets/budget-store';
import { createRedisBudgetStore } from '../../server/budgets/redis-budget-store';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { createTestDatabase, mockChatConfig, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import type { TestDatabase } from '../db/databases';
import { createTestRedis, deleteKeys, isRedisReachable, redisUrl } from '../rate-limit/redis-test-client';
import { switchableGate } from '../helpers/switchable-gate';

/*
 * docs/rate-limits.md, "Several instances: Redis", and docs/operator-controls.md, spend budgets:
 * when the Redis calls of the spend budgets fail or hang (the rate limits' own Redis calls still
 * work), a model call with a budget is answered within about the breaker's timeout (250 ms)
 * from this instance's counters under `limits.redis_failure: open`, and is 503
 * rate_limiter_unavailable under `closed`; the rate limits share the breaker, so they too answer
 * by the policy until a probe, and a probe that succeeds makes the budgets shared again.
 */
const available = await isRedisReachable();
if (!available) console.warn('[budgets] Redis unreachable: skipping the budget outage tests (CI runs them).');

const config = (policy: 'open' | 'closed') =>
  mockChatConfig({ sections: [`limits: { default_rpm: 100000, default_tpm: 100000000, redis_failure: ${policy} }`] });

/** The Redis budget store with a switch: `fail` refuses every call, `hang` never answers. */
function switchableBudgetStore(inner: BudgetStore) {
  const { control, gate } = switchableGate();
  const store: BudgetStore = {
    reserve: (counters) => gate(() => inner.reserve(counters)),
    settle: (id, delta, settled) => gate(() => inner.settle(id, delta, settled)),
    firstTime: (id, ttlMs) => gate(() => inner.firstTime(id, ttlMs)),
    close: () => inner.close(),
  };
  return { control, store };
}

async function within(limitMs: number, probe: () => Promise<boolean>): Promise<void> {
  const startedAt = performance.now();
  while (!(await probe())) {
    if (performance.now() - startedAt > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!available)('spend budgets while their Redis fails', () => {
  const redis = createTestRedis();
  const prefix = `mg:budget-outage:${randomBytes(6).toString('hex')}:`;
  const budgetRedis = switchableBudgetStore(createRedisBudgetStore({ redis, prefix }));
  let database: TestDatabase;
  const gateways: TestGateway[] = [];

  const start = async (policy: 'open' | 'closed') => {
    const gateway = await startTestGateway({
      configYaml: config(policy),
      databaseUrl: database.url,
      env: { REDIS_URL: redisUrl },
      rateLimitPrefix: prefix,
      budgetStore: budgetRedis.store,
    });
    gateways.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    await redis.connect();
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await deleteKeys(redis, prefix);
    redis.disconnect();
    await database?.drop();
  });

  const budgetedKey = async (gw: TestGateway) => {
    const accountId = await gw.createAccount();
    const response = await gw.http
      .post(`/v1/admin/accounts/${accountId}/keys`)
      .set(gw.admin())
      .send({ name: 'budgeted', budget: { amount_usd: 0.0001, period: 'day' } })
      .expect(201);
    return response.body as { id: string; key: string };
  };
  const chat = (gw: TestGateway, key: string) =>
    gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
  const redisUp = async (gw: TestGateway) => sampleValue(parsePrometheusText((await gw.http.get('/metrics')).text), 'gateway_redis_up');

  it('open: a hung budget Redis costs about the timeout once; the call is served from this instance’s counters', async () => {
    const gw = await start('open');
    const { key } = await budgetedKey(gw);
    budgetRedis.control.mode = 'hang';
    const calls = budgetRedis.control.calls;
    const started = performance.now();
    const first = await chat(gw, key);
    expect(first.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(Number(first.headers['x-gateway-budget-remaining-usd'])).toBeLessThan(0.0001);
    expect(budgetRedis.control.calls).toBe(calls + 1);

    const next = performance.now();
    const second = await chat(gw, key);
    expect(second.status).toBe(200);
    expect(performance.now() - next).toBeLessThan(1_000);
    expect(Number(second.headers['x-gateway-budget-remaining-usd'])).toBeLessThan(Number(first.headers['x-gateway-budget-remaining-usd']));
    expect(await redisUp(gw)).toBe(0);
    const ready = await gw.http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.redis).toBe('down');
  });

  it('open: budgets hold per instance while it fails, and are shared again once a probe succeeds', async () => {
    const a = await start('open');
    const b = await start('open');
    budgetRedis.control.mode = 'fail';
    const outage = await budgetedKey(a);
    const onA: number[] = [];
    for (let index = 0; index < 20 && onA.at(-1) !== 429; index += 1) onA.push((await chat(a, outage.key)).status);
    expect(onA.at(-1)).toBe(429);
    expect(onA.filter((status) => status === 200).length).toBeGreaterThan(1);
    expect(await redisUp(a)).toBe(0);

    budgetRedis.control.mode = 'ok';
    // The breakers probe Redis at most once a second; a model call's rate limits are the probe.
    const open = await a.createKey(await a.createAccount());
    await within(5_000, async () => {
      await chat(a, open.key);
      await chat(b, open.key);
      return (await redisUp(a)) === 1 && (await redisUp(b)) === 1;
    });

    // Shared: b's counter is in use before a spends the budget, and b is refused after.
    const shared = await budgetedKey(a);
    expect((await chat(b, shared.key)).status).toBe(200);
    let refusedOnA = false;
    for (let index = 0; index < 20 && !refusedOnA; index += 1) refusedOnA = (await chat(a, shared.key)).status === 429;
    expect(refusedOnA).toBe(true);
    const onB = await chat(b, shared.key);
    expect(onB.status).toBe(429);
    expect(onB.body.error.code).toBe('budget_exceeded');
    expect(await redis.keys(`${prefix}budget:key:${shared.id}:*`)).toHaveLength(1);
  });

  it('closed: a model call with a budget is 503 rate_limiter_unavailable, and so is the next one without', async () => {
    const gw = await start('closed');
    const { key } = await budgetedKey(gw);
    const unbudgeted = await gw.createKey(await gw.createAccount());
    budgetRedis.control.mode = 'fail';
    const refused = await chat(gw, key);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ type: 'server_error', code: 'rate_limiter_unavailable' });
    // One breaker: the rate limits know Redis is down and answer by the policy too.
    expect((await chat(gw, unbudgeted.key)).status).toBe(503);
    const ready = await gw.http.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.redis).toBe('down');

    budgetRedis.control.mode = 'hang';
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const started = performance.now();
    const hung = await chat(gw, key);
    expect(hung.status).toBe(503);
    expect(hung.body.error.code).toBe('rate_limiter_unavailable');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
