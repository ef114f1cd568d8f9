import { afterEach, describe, expect, it } from 'vitest';
import { BASE_TEST_CONFIG, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { report, TestClock } from './usage-http-helpers';

/**
 * The usage route's own limits (docs/rate-limits.md): per usage query key and per client IP,
 * 429 rate_limit_exceeded with `retry-after` (whole seconds, at least 1) past either. The
 * gateway's clock is fixed, so no budget refills while a test runs unless it moves the clock.
 * That clock drives the in-memory limiter only (Redis uses its own TIME), so these tests
 * clear REDIS_URL; the Redis store's semantics are tested in test/rate-limit.
 */
let gw: TestGateway | null = null;
const clock = new TestClock('2026-03-01T00:00:00.000Z');

afterEach(async () => {
  await gw?.close();
  gw = null;
});

async function start(limits: string | null): Promise<TestGateway> {
  clock.set('2026-03-01T00:00:00.000Z');
  gw = await startTestGateway({
    configYaml: limits === null ? BASE_TEST_CONFIG : `${BASE_TEST_CONFIG}\nlimits: ${limits}\n`,
    now: clock.now,
    env: { REDIS_URL: '' },
  });
  return gw;
}

async function usageKeys(gateway: TestGateway, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const accountId = await gateway.createAccount();
    await gateway.createKey(accountId);
    keys.push(await gateway.createUsageKey(accountId));
  }
  return keys;
}

async function expectAllowed(gateway: TestGateway, usageKey: string, times: number): Promise<void> {
  for (let index = 0; index < times; index += 1) {
    const response = await report(gateway, usageKey);
    expect(response.status, `request ${index + 1}`).toBe(200);
  }
}

async function expectLimited(gateway: TestGateway, usageKey: string): Promise<number> {
  const response = await report(gateway, usageKey);
  expect(response.status).toBe(429);
  expect(response.body).toEqual({
    error: { message: expect.any(String), type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null },
  });
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  return retryAfter;
}

describe('usage route limits (small configured values: 3 per key, 5 per IP)', () => {
  const small = '{ usage_key_rpm: 3, usage_ip_rpm: 5 }';

  it('the 4th request of one usage key within a minute is 429; after retry-after it passes again', async () => {
    const gateway = await start(small);
    const [usageKey = ''] = await usageKeys(gateway, 1);
    await expectAllowed(gateway, usageKey, 3);
    const retryAfter = await expectLimited(gateway, usageKey);
    expect(retryAfter).toBeLessThanOrEqual(60);
    await expectLimited(gateway, usageKey);

    clock.advance(retryAfter * 1000 - 1);
    await expectLimited(gateway, usageKey);
    clock.advance(1);
    await expectAllowed(gateway, usageKey, 1);
  });

  it('keys of several accounts share the per-IP budget: the 6th request from the IP is 429 for any key', async () => {
    const gateway = await start(small);
    const [first = '', second = '', third = ''] = await usageKeys(gateway, 3);
    await expectAllowed(gateway, first, 3);
    await expectAllowed(gateway, second, 2);
    // `second` has budget left, the IP has none.
    await expectLimited(gateway, second);
    await expectLimited(gateway, third);
    // A refused request does not spend the key's own budget: after a minute, third has all 3.
    clock.advance(60_000);
    await expectAllowed(gateway, third, 3);
  });

  it('the limits do not touch model calls', async () => {
    const gateway = await start(small);
    const accountId = await gateway.createAccount();
    const { key } = await gateway.createKey(accountId);
    const usageKey = await gateway.createUsageKey(accountId);
    await expectAllowed(gateway, usageKey, 3);
    await expectLimited(gateway, usageKey);
    for (let index = 0; index < 8; index += 1) {
      const response = await gateway.http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status).toBe(200);
    }
  });
});

describe('usage route limits (defaults: 30 per key, 120 per IP)', () => {
  it('the 31st request of one usage key within a minute is 429', async () => {
    const gateway = await start(null);
    const [usageKey = ''] = await usageKeys(gateway, 1);
    await expectAllowed(gateway, usageKey, 30);
    await expectLimited(gateway, usageKey);
  });

  it('the 121st request from one IP within a minute is 429, whichever key it carries', async () => {
    const gateway = await start(null);
    const keys = await usageKeys(gateway, 5);
    for (const usageKey of keys.slice(0, 4)) await expectAllowed(gateway, usageKey, 30);
    await expectLimited(gateway, keys[4] ?? '');
  });
});
