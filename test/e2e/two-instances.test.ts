import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/test-gateway';
import { redisUrl } from '../rate-limit/redis-test-client';
import { costFemto, decimalToNano, exactReport, femtoToNano, MOCK_CHAT_PRICES, TestClock } from '../usage/usage-http-helpers';
import { postgresAndRedisAvailable, useTwoGateways } from './two-gateways';

/**
 * docs/architecture.md, "Several instances", on the real services: two gateway instances on one
 * Postgres and one Redis. A key revoked or blocked through one is refused by the other
 * within 1 s (Redis key-change messages; the other instance's database re-check is slowed
 * to a minute here so that only the messages can explain it); rate limits are exact across
 * both; usage from both sums exactly in the report.
 *
 * Needs Postgres (TEST_POSTGRES_URL) and Redis (REDIS_URL); skipped with a message without
 * them. CI provides both.
 */
const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const CLI = path.join(REPOSITORY, 'bin/model-gateway.js');
const available = await postgresAndRedisAvailable('the two-instance tests');

/** Long enough that polling cannot deliver a change during a test: only pub/sub can. */
const NO_POLLING_MS = 60_000;

/** Retries `probe` until it returns true; resolves with the elapsed ms, or rejects after `limitMs`. */
async function msUntil(probe: () => Promise<boolean>, limitMs: number): Promise<number> {
  const startedAt = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - startedAt;
    if (performance.now() - startedAt > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.skipIf(!available)('two instances on one Postgres + Redis', () => {
  const clock = new TestClock('2026-11-20T04:00:00.000Z');
  const gateways = useTwoGateways({
    rateLimitPrefix: `mg:scale:${randomBytes(6).toString('hex')}:`,
    now: clock.now,
    keyRefreshIntervalMs: NO_POLLING_MS,
  });
  let accountId: string;

  beforeAll(async () => {
    accountId = await gateways.a.createAccount('scale');
  });

  const chat = (gw: TestGateway, key: string, content = 'hello from the scale test') =>
    gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${key}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content }] });

  it('a key revoked through one instance is refused by the other within 1 s', async () => {
    const { a, b } = gateways;
    const { id, key } = await a.createKey(accountId, { name: 'to revoke' });
    // B has the key cached: from now on only a notification can change its mind.
    expect((await chat(b, key)).status).toBe(200);
    await a.http.post(`/v1/admin/keys/${id}/revoke`).set(a.admin()).expect(200);
    const elapsed = await msUntil(async () => (await chat(b, key)).status === 401, 1_000);
    expect(elapsed).toBeLessThan(1_000);
    const refused = await chat(b, key);
    expect(refused.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  });

  it('a key blocked through one instance is refused (403) by the other within 1 s, and unblocked again', async () => {
    const { a, b } = gateways;
    const { id, key } = await b.createKey(accountId, { name: 'to block' });
    expect((await chat(a, key)).status).toBe(200);
    await b.http.post(`/v1/admin/keys/${id}/block`).set(b.admin()).expect(200);
    expect(await msUntil(async () => (await chat(a, key)).status === 403, 1_000)).toBeLessThan(1_000);
    await b.http.post(`/v1/admin/keys/${id}/unblock`).set(b.admin()).expect(200);
    expect(await msUntil(async () => (await chat(a, key)).status === 200, 1_000)).toBeLessThan(1_000);
  });

  it('a key revoked with the CLI (another process, REDIS_URL set) is refused by both within 1 s', async () => {
    const { a, b, database } = gateways;
    const { id, key } = await a.createKey(accountId, { name: 'cli revoke' });
    expect((await chat(a, key)).status).toBe(200);
    expect((await chat(b, key)).status).toBe(200);
    // Asynchronously: the two gateways live in this process and keep serving meanwhile.
    const result = await promisify(execFile)(process.execPath, [CLI, 'keys', 'revoke', id], {
      cwd: REPOSITORY,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: database.url, REDIS_URL: redisUrl, LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
    expect(JSON.parse(result.stdout)).toMatchObject({ id, status: 'REVOKED' });
    const refusedBy = async (gw: TestGateway) => (await chat(gw, key)).status === 401;
    expect(await msUntil(async () => (await refusedBy(a)) && (await refusedBy(b)), 1_000)).toBeLessThan(1_000);
  });

  it('a rotated usage key stops working on the other instance within 1 s', async () => {
    const { a, b } = gateways;
    const first = await a.createUsageKey(accountId);
    expect((await b.http.get('/v1/usage/keys').set('authorization', `Bearer ${first}`)).status).toBe(200);
    const second = await a.createUsageKey(accountId);
    expect(
      await msUntil(async () => (await b.http.get('/v1/usage/keys').set('authorization', `Bearer ${first}`)).status === 401, 1_000),
    ).toBeLessThan(1_000);
    expect((await b.http.get('/v1/usage/keys').set('authorization', `Bearer ${second}`)).status).toBe(200);
  });

  it('limits are exact across both: 200 parallel requests at rpm 50 -> exactly 50 succeed; usage sums exactly', async () => {
    const { a, b } = gateways;
    const { key } = await a.createKey(accountId, { name: 'limited', rpm: 50 });
    const startedAt = performance.now();
    const responses = await Promise.all(Array.from({ length: 200 }, (_, index) => chat(index % 2 === 0 ? a : b, key, `request ${index}`)));
    const elapsedMs = performance.now() - startedAt;
    const statuses = responses.map((response) => response.status);
    // The bucket refills continuously, one request per 60 s / 50 = 1.2 s: a burst slower than
    // that (a loaded CI machine) has earned one more. Normally the burst takes well under.
    const refilled = Math.floor(elapsedMs / 1_200);
    const succeeded = statuses.filter((status) => status === 200).length;
    expect(succeeded, `${elapsedMs.toFixed(0)} ms`).toBeGreaterThanOrEqual(50);
    expect(succeeded, `${elapsedMs.toFixed(0)} ms`).toBeLessThanOrEqual(50 + refilled);
    expect(statuses.filter((status) => status === 429)).toHaveLength(200 - succeeded);
    for (const refused of responses.filter((response) => response.status === 429)) {
      expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Both instances answered some of the 50.
    const servedBy = (gw: TestGateway) =>
      responses.filter((response, index) => response.status === 200 && (index % 2 === 0 ? a : b) === gw).length;
    expect(servedBy(a)).toBeGreaterThan(0);
    expect(servedBy(b)).toBeGreaterThan(0);

    // What the clients were told, summed exactly; the report must say the same, to the last digit.
    const usages = responses
      .filter((response) => response.status === 200)
      .map((response) => response.body.usage as { prompt_tokens: number; completion_tokens: number });
    const promptTokens = usages.reduce((sum, usage) => sum + usage.prompt_tokens, 0);
    const completionTokens = usages.reduce((sum, usage) => sum + usage.completion_tokens, 0);
    const expectedSpend = femtoToNano(
      usages.reduce((sum, usage) => sum + costFemto(MOCK_CHAT_PRICES, usage.prompt_tokens, usage.completion_tokens), 0n),
    );

    await a.gateway.recorder?.flush();
    await b.gateway.recorder?.flush();
    const usageKey = await a.createUsageKey(accountId);
    for (const gw of [a, b]) {
      const report = await exactReport(gw, usageKey, { start: '2026-11-20', end: '2026-11-20' });
      const entry = report.keys.find((candidate) => candidate.name === 'limited');
      expect(entry?.total).toMatchObject({ requests: succeeded, prompt_tokens: promptTokens, completion_tokens: completionTokens });
      expect(decimalToNano(entry?.total.spend_usd ?? 'NaN')).toBe(expectedSpend);
      expect(entry?.daily).toHaveLength(1);
    }
  });
});
