import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { isRedisReachable, redisUrl } from '../rate-limit/redis-test-client';

/**
 * docs/operator-controls.md across instances, through the Redis key-change messages alone
 * (the database re-check is slowed to a minute): a rotation with no grace, an account's new
 * allow-list and a block reach the other instance within a second; an expiry and a grace end
 * at the same instant on both (they are compared with the clock).
 */
const available = await isRedisReachable();
const NO_POLLING_MS = 60_000;

describe.skipIf(!available)('operator controls on two instances sharing Redis', () => {
  let a: TestGateway;
  let b: TestGateway;
  let accountId = '';

  beforeAll(async () => {
    a = await startTestGateway({
      env: { REDIS_URL: redisUrl },
      rateLimitPrefix: `mg:oc:${randomBytes(6).toString('hex')}:`,
      keyRefreshIntervalMs: NO_POLLING_MS,
    });
    b = await startTestGateway({
      databaseUrl: a.databaseUrl,
      env: { REDIS_URL: redisUrl },
      rateLimitPrefix: `mg:oc:${randomBytes(6).toString('hex')}:`,
      keyRefreshIntervalMs: NO_POLLING_MS,
    });
    accountId = await a.createAccount('Two instances');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const chat = (gw: TestGateway, key: string, model = 'mock-chat') =>
    gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });

  async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('a rotation without grace: the old secret is refused by the other instance within 1 s', async () => {
    const { id, key } = await a.createKey(accountId, { name: 'rotated' });
    expect((await chat(b, key)).status).toBe(200);
    const rotated = await a.http.post(`/v1/admin/keys/${id}/rotate`).set(a.admin()).send({ grace_seconds: 0 });
    await within(1000, async () => (await chat(b, key)).status === 401);
    expect((await chat(b, rotated.body.key)).status).toBe(200);
  });

  it('a grace and an expiry end at the same instant on both', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await a.http.post(`/v1/admin/accounts/${accountId}/keys`).set(a.admin()).send({ name: 'both', expires_at: expiresAt });
    const { id, key } = created.body;
    expect((await chat(b, key)).status).toBe(200);
    const rotated = await b.http.post(`/v1/admin/keys/${id}/rotate`).set(b.admin()).send({ grace_seconds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const gw of [a, b]) expect((await chat(gw, key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(rotated.body.previous_secret_expires_at) - Date.now() + 20));
    for (const gw of [a, b]) expect((await chat(gw, key)).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 20));
    for (const gw of [a, b]) expect((await chat(gw, rotated.body.key)).body.error.code).toBe('key_expired');
  });

  it('an account’s new allow-list and the operator’s block reach the other instance within 1 s', async () => {
    const { id, key } = await a.createKey(accountId, { name: 'listed' });
    expect((await chat(b, key, 'mock-text')).status).toBe(200);
    await a.http
      .patch(`/v1/admin/accounts/${accountId}`)
      .set(a.admin())
      .send({ models: ['mock-chat'] })
      .expect(200);
    await within(1000, async () => (await chat(b, key, 'mock-text')).status === 403);
    await a.http.post(`/v1/admin/keys/${id}/block`).set(a.admin()).expect(200);
    await within(1000, async () => (await chat(b, key)).status === 403);
  });
});
