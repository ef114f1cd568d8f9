import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestRedis } from '../rate-limit/redis-test-client';
import { decimalToNano, exactReport, femtoToNano, TestClock } from '../usage/usage-http-helpers';
import { postgresAndRedisAvailable, useTwoGateways } from './two-gateways';

/**
 * docs/operator-controls.md, spend budgets across instances: two gateways on one Postgres and
 * one Redis share a key's budget exactly. 200 concurrent requests split over both: the spend
 * never passes the budget by more than the request granted last, and the report's spend, the
 * costs the clients were told and the shared counter's settled spend are the same amount.
 * Needs Postgres and Redis; skipped with a message without them.
 */
const available = await postgresAndRedisAvailable('the two-instance budget test');

const BUDGET_USD = '0.002';
const FEMTO_PER_NANO = 1_000_000n;

/** A decimal USD text with up to 15 decimals (the cost header) as exact femto-dollars. */
function usdToFemto(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 10n ** 15n + BigInt(fraction.padEnd(15, '0'));
}

describe.skipIf(!available)('a spend budget shared by two instances (Postgres + Redis)', () => {
  const clock = new TestClock('2026-11-20T04:00:00.000Z');
  const prefix = `mg:scale-budget:${randomBytes(6).toString('hex')}:`;
  const gateways = useTwoGateways({ rateLimitPrefix: prefix, now: clock.now });

  it('holds under 200 concurrent requests, and the report equals the counter', async () => {
    const { a, b } = gateways;
    const accountId = await a.createAccount('budget-scale');
    const created = await a.http
      .post(`/v1/admin/accounts/${accountId}/keys`)
      .set(a.admin())
      .send({ name: 'shared budget', budget: { amount_usd: Number(BUDGET_USD), period: 'day' } })
      .expect(201);
    const { id, key } = created.body as { id: string; key: string };
    const usageKey = await a.createUsageKey(accountId);

    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        (index % 2 === 0 ? a : b).http
          .post('/v1/chat/completions')
          .set('authorization', `Bearer ${key}`)
          .send({ model: 'mock-chat', messages: [{ role: 'user', content: `hello number ${index}` }], max_tokens: 5 }),
      ),
    );
    const granted = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 429);
    expect(granted.length + refused.length).toBe(200);
    expect(granted.length).toBeGreaterThan(10);
    expect(refused.length).toBeGreaterThan(10);
    for (const response of refused) expect(response.body.error.code).toBe('budget_exceeded');

    const costs = granted.map((response) => usdToFemto(String(response.headers['x-gateway-cost-usd'])));
    const spent = costs.reduce((sum, cost) => sum + cost, 0n);
    const largest = costs.reduce((most, cost) => (cost > most ? cost : most), 0n);
    const budget = decimalToNano(BUDGET_USD) * FEMTO_PER_NANO;
    expect(spent).toBeLessThanOrEqual(budget + largest);

    // Every settlement is off the response path: wait until the counter has them all.
    const redis = createTestRedis();
    try {
      await redis.connect();
      const [counterKey] = await redis.keys(`${prefix}budget:key:${id}:*`);
      expect(counterKey).toBeDefined();
      const settled = async () => {
        const [nano, femto] = await redis.hmget(counterKey as string, 'sn', 'sf');
        return BigInt(nano ?? '0') * FEMTO_PER_NANO + BigInt(femto ?? '0');
      };
      for (let attempt = 0; attempt < 100 && (await settled()) !== spent; attempt += 1) await new Promise((r) => setTimeout(r, 20));
      expect(await settled()).toBe(spent);
      const [totalNano, totalFemto] = await redis.hmget(counterKey as string, 'tn', 'tf');
      expect(BigInt(totalNano ?? '0') * FEMTO_PER_NANO + BigInt(totalFemto ?? '0')).toBe(spent);
    } finally {
      redis.disconnect();
    }

    await b.gateway.recorder?.flush();
    const report = await exactReport(a, usageKey, { start: '2026-11-20', end: '2026-11-20' });
    expect(report.keys[0]?.total.requests).toBe(granted.length);
    expect(decimalToNano(report.keys[0]?.total.spend_usd ?? '0')).toBe(femtoToNano(spent));
  });
});
