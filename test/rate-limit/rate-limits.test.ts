import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_TEST_CONFIG, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { isRedisReachable, redisUrl } from './redis-test-client';

/**
 * docs/rate-limits.md through HTTP: per-key RPM/TPM with the headers on every response, 429 +
 * retry-after, reservation and reconciliation. The exact-arithmetic tests use the in-memory
 * limiter with a frozen clock (REDIS_URL cleared); the Redis tests share one Redis between
 * two gateway instances.
 */
const clock = { now: Date.UTC(2026, 10, 21, 12, 0, 0) };

const message = (content: string) => [{ role: 'user' as const, content }];

describe('in-memory limiter, frozen clock', () => {
  let gw: TestGateway;
  let accountId: string;
  beforeAll(async () => {
    gw = await startTestGateway({ now: () => clock.now, env: { REDIS_URL: '' } });
    accountId = await gw.createAccount();
  });
  afterAll(() => gw.close());

  const chat = (key: string, body: Record<string, unknown> = {}) => gw.chat(key, { messages: message('hello'), max_tokens: 10, ...body });

  it('the N+1th request in a window is 429 with the headers and retry-after; remaining falls on successes', async () => {
    const { key } = await gw.createKey(accountId, { rpm: 3, tpm: 100_000 });
    const remaining: string[] = [];
    for (let index = 0; index < 3; index++) {
      const response = await chat(key);
      expect(response.status).toBe(200);
      expect(response.headers['x-ratelimit-limit-requests']).toBe('3');
      expect(response.headers['x-ratelimit-limit-tokens']).toBe('100000');
      expect(response.headers['x-ratelimit-reset-requests']).toMatch(/^\d+(\.\d+)?(ms|s)$|^\d+m\d+(\.\d+)?s$/);
      expect(response.headers['x-ratelimit-reset-tokens']).toBeTruthy();
      remaining.push(response.headers['x-ratelimit-remaining-requests'] as string);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null });
    expect(refused.body.error.message).toMatch(/requests per minute \(3\)/);
    // One request returns after 60 s / 3 = 20 s.
    expect(refused.headers['retry-after']).toBe('20');
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(refused.headers['x-ratelimit-limit-requests']).toBe('3');

    // A refused request is not billed and does not appear in usage.
    clock.now += 20_000;
    expect((await chat(key)).status).toBe(200);
    expect((await chat(key)).status).toBe(429);
    // The window resets: after a full minute every request is available again.
    clock.now += 60_000;
    for (let index = 0; index < 3; index++) expect((await chat(key)).status).toBe(200);
  });

  it('tokens are reserved (prompt estimate + max_tokens) and reconciled with the real usage', async () => {
    const { key } = await gw.createKey(accountId, { rpm: 1000, tpm: 10_000 });
    const first = await chat(key, { max_tokens: 5000 });
    expect(first.status).toBe(200);
    const reservedRemaining = Number(first.headers['x-ratelimit-remaining-tokens']);
    const used = first.body.usage.total_tokens as number;
    // Reserved: prompt estimate + 5000, so well under 5000 remain right after the reservation.
    expect(reservedRemaining).toBeLessThan(5000);
    expect(reservedRemaining).toBeGreaterThan(4900);
    const second = await chat(key, { max_tokens: 10 });
    expect(second.status).toBe(200);
    // The unused part of the first reservation was refunded: only the real usage stays charged.
    const afterSecond = Number(second.headers['x-ratelimit-remaining-tokens']);
    const secondReserve = 10_000 - used - afterSecond;
    expect(secondReserve).toBeGreaterThan(10);
    expect(secondReserve).toBeLessThan(40);
  });

  it('a TPM limit trips on large prompts, with a clear message when the request can never fit', async () => {
    const { key } = await gw.createKey(accountId, { rpm: 1000, tpm: 300 });
    // docs/operator-controls.md: a request that can never fit is a 400 naming the field, not a 429.
    const huge = await chat(key, { messages: message('word '.repeat(400)) });
    expect(huge.status).toBe(400);
    expect(huge.body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large', param: 'messages' });
    const fits = await chat(key, { messages: message('word '.repeat(100)), max_tokens: 50 });
    expect(fits.status).toBe(200);
    const next = await chat(key, { messages: message('word '.repeat(100)), max_tokens: 50 });
    expect(next.status).toBe(429);
    expect(next.body.error.message).toMatch(/tokens per minute \(300\)/);
    expect(Number(next.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('a TPM limit trips on streamed completions: their real tokens are charged', async () => {
    const { key } = await gw.createKey(accountId, { rpm: 1000, tpm: 400 });
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.baseUrl}/v1`, maxRetries: 0 });
    let streamed = 0;
    let refused: unknown = null;
    for (let index = 0; index < 20 && refused === null; index++) {
      try {
        const stream = await client.chat.completions.create({
          model: 'mock-chat',
          messages: message(`stream number ${index} with a few words to echo back`),
          max_tokens: 40,
          stream: true,
        });
        for await (const chunk of stream) void chunk;
        streamed++;
      } catch (error) {
        refused = error;
      }
    }
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    // Each stream reserved ~55 tokens and was charged its real ~25: more than 400/55 = 7 fit.
    expect(streamed).toBeGreaterThan(7);
    expect(streamed).toBeLessThan(20);
  });

  it('embeddings share the same per-key budget', async () => {
    const { key } = await gw.createKey(accountId, { rpm: 2, tpm: 100_000 });
    expect((await chat(key)).status).toBe(200);
    const embedding = await gw.http.post('/v1/embeddings').set('authorization', `Bearer ${key}`).send({ model: 'mock-embed', input: 'x' });
    expect(embedding.status).toBe(200);
    expect(embedding.headers['x-ratelimit-remaining-requests']).toBe('0');
    const refused = await gw.http.post('/v1/embeddings').set('authorization', `Bearer ${key}`).send({ model: 'mock-embed', input: 'x' });
    expect(refused.status).toBe(429);
  });

  it('limits changed through the admin API apply at once', async () => {
    const { key, id } = await gw.createKey(accountId, { rpm: 1 });
    expect((await chat(key)).status).toBe(200);
    expect((await chat(key)).status).toBe(429);
    await gw.http.patch(`/v1/admin/keys/${id}`).set(gw.admin()).send({ rpm: 100 }).expect(200);
    const response = await chat(key);
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit-requests']).toBe('100');
  });
});

const REDIS_URL = redisUrl;
const hasRedis = await isRedisReachable();

describe.skipIf(!hasRedis)('Redis limiter shared by two instances', () => {
  let first: TestGateway;
  let second: TestGateway;
  beforeAll(async () => {
    const prefix = `mg:test:shared:${randomBytes(6).toString('hex')}:`;
    first = await startTestGateway({ env: { REDIS_URL }, rateLimitPrefix: prefix });
    second = await startTestGateway({ env: { REDIS_URL }, rateLimitPrefix: prefix, databaseUrl: first.databaseUrl });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('200 parallel requests through two instances, rpm 50: exactly 50 succeed (plus what the bucket refilled meanwhile)', async () => {
    const accountId = await first.createAccount();
    const { key } = await first.createKey(accountId, { rpm: 50, tpm: 10_000_000 });
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        (index % 2 === 0 ? first : second).http
          .post('/v1/chat/completions')
          .set('authorization', `Bearer ${key}`)
          .send({ model: 'mock-chat', messages: message(`request ${index}`), max_tokens: 5 })
          .then((response) => response.status),
      ),
    );
    // The bucket refills continuously (docs/rate-limits.md): one request per 1.2 s at rpm 50, so a
    // burst that took longer on a loaded machine has earned that many more, and not one beyond.
    const refilled = Math.floor((Date.now() - started) / 1_200);
    const succeeded = results.filter((status) => status === 200).length;
    expect(succeeded).toBeGreaterThanOrEqual(50);
    expect(succeeded).toBeLessThanOrEqual(50 + refilled);
    expect(results.filter((status) => status === 429)).toHaveLength(200 - succeeded);
  });
});

describe('Redis unreachable', () => {
  const deadRedis = 'redis://127.0.0.1:1';

  it('policy open (the default): requests pass on per-instance limits; /readyz reports redis down but stays ready', async () => {
    const gw = await startTestGateway({ env: { REDIS_URL: deadRedis } });
    try {
      const accountId = await gw.createAccount();
      const { key } = await gw.createKey(accountId, { rpm: 2 });
      const call = () =>
        gw.http
          .post('/v1/chat/completions')
          .set('authorization', `Bearer ${key}`)
          .send({ model: 'mock-chat', messages: message('hi') });
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(429);
      const ready = await gw.http.get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks.redis).toBe('down');
    } finally {
      await gw.close();
    }
  });

  it('policy closed: model calls answer 503 rate_limiter_unavailable and /readyz is 503', async () => {
    const gw = await startTestGateway({
      env: { REDIS_URL: deadRedis },
      configYaml: BASE_TEST_CONFIG.replace('providers:', 'limits: { redis_failure: closed }\nproviders:'),
    });
    try {
      const accountId = await gw.createAccount();
      const { key } = await gw.createKey(accountId);
      const response = await gw.http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'mock-chat', messages: message('hi') });
      expect(response.status).toBe(503);
      expect(response.body.error).toMatchObject({ type: 'server_error', code: 'rate_limiter_unavailable' });
      expect((await gw.http.get('/readyz')).status).toBe(503);
    } finally {
      await gw.close();
    }
  });
});
