import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { createTestDatabase, mockChatConfig, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import type { TestDatabase } from '../db/databases';
import { isRedisReachable, redisUrl } from '../rate-limit/redis-test-client';

/**
 * Redis goes away under two instances (docs/rate-limits.md): with the default `redis_failure:
 * open` both keep serving on per-instance limits (docs/rate-limits.md, "Several instances: Redis"), a key revoked
 * through one is still refused by the other within 1 s (the database re-check is the
 * backstop of the lost key-change messages), and when Redis returns the instances go back
 * to the shared limits.
 */
const available = await isRedisReachable();
if (!available) console.warn('[ops] Redis unreachable: skipping the Redis outage tests (CI runs them).');

const CONFIG = mockChatConfig({
  sections: ['limits: { default_rpm: 100000, default_tpm: 100000000 }'],
  pricing: '{ input_per_million: 1, output_per_million: 2 }',
});

async function within(limitMs: number, probe: () => Promise<boolean>): Promise<number> {
  const startedAt = performance.now();
  while (!(await probe())) {
    if (performance.now() - startedAt > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - startedAt;
}

describe.skipIf(!available)('Redis down under two instances', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let a: TestGateway;
  let b: TestGateway;
  let accountId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(redisUrl);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const shared = {
      configYaml: CONFIG,
      databaseUrl: database.url,
      env: { REDIS_URL: `redis://${proxy.address}` },
      rateLimitPrefix: `mg:outage:${randomBytes(6).toString('hex')}:`,
    };
    a = await startTestGateway(shared);
    b = await startTestGateway(shared);
    accountId = await a.createAccount();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await proxy?.close();
    await database?.drop();
  });

  const chat = (gw: TestGateway, key: string) =>
    gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] });
  const redisUp = async (gw: TestGateway) => sampleValue(parsePrometheusText((await gw.http.get('/metrics')).text), 'gateway_redis_up');

  it('keeps serving on per-instance limits, and revocation still reaches the other instance within 1 s', async () => {
    const limited = await a.createKey(accountId, { rpm: 3 });
    const revoked = await a.createKey(accountId);
    expect((await chat(b, revoked.key)).status).toBe(200);

    await proxy.cut();
    // Per-instance limits (`open`): each instance grants the key's rpm from its own memory.
    const onA = [];
    for (let index = 0; index < 4; index++) onA.push((await chat(a, limited.key)).status);
    expect(onA).toEqual([200, 200, 200, 429]);
    expect((await chat(b, limited.key)).status).toBe(200);
    expect(await redisUp(a)).toBe(0);
    const ready = await a.http.get('/readyz');
    expect(ready.body.checks.redis).toBe('down');

    // The key-change message cannot be delivered; the database re-check delivers the change.
    await a.http.post(`/v1/admin/keys/${revoked.id}/revoke`).set(a.admin()).expect(200);
    expect(await within(1_000, async () => (await chat(b, revoked.key)).status === 401)).toBeLessThan(1_000);
  });

  it('when Redis returns, the limits are shared again', async () => {
    await proxy.restore();
    const key = await a.createKey(accountId, { rpm: 4 });
    // The limiter probes Redis at most once a second while it is down.
    await within(5_000, async () => {
      await chat(a, key.key);
      await chat(b, key.key);
      return (await redisUp(a)) === 1 && (await redisUp(b)) === 1;
    });
    const fresh = await a.createKey(accountId, { rpm: 4 });
    const statuses = [];
    for (let index = 0; index < 6; index++) statuses.push((await chat(index % 2 === 0 ? a : b, fresh.key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});
