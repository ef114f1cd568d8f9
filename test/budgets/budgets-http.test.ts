import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../helpers/capture-logger';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/*
 * docs/operator-controls.md, spend budgets, on the wire: the admin API, 429 budget_exceeded with
 * its headers, the 400 of a request over a whole budget, the remaining-budget header, the ledger
 * as the spend (a changed period, a restart), rollover at Asia/Shanghai midnight on a controlled
 * clock, alerts in /metrics and the log, and the OpenAI SDK giving up at once.
 */

// 23:50 in Shanghai (UTC+8): ten minutes before the day's budgets reset.
const clock = { now: Date.UTC(2026, 10, 21, 15, 50, 0) };
const SECONDS_TO_MIDNIGHT = 600;
let gw: TestGateway;
const logs = captureLogger('info');

beforeAll(async () => {
  gw = await startTestGateway({ now: () => clock.now, logger: logs.logger });
});
afterAll(() => gw.close());

const createKey = (accountId: string, body: Record<string, unknown>) => gw.createKeyWith(accountId, { name: 'budgeted', ...body });
const setAccountBudget = (accountId: string, budget: Record<string, unknown>) =>
  gw.http.patch(`/v1/admin/accounts/${accountId}`).set(gw.admin()).send({ budget }).expect(200);

const chat = (key: string, extra: Record<string, unknown> = {}) => gw.chat(key, extra);

/** Sends requests until one is refused; answers the successes' remaining-budget headers and the refusal. */
async function spendUntilRefused(key: string) {
  const remaining: number[] = [];
  for (let index = 0; index < 100; index += 1) {
    const response = await chat(key);
    if (response.status !== 200) return { remaining, refused: response };
    remaining.push(Number(response.headers['x-gateway-budget-remaining-usd']));
  }
  throw new Error('never refused');
}

async function reportedSpend(accountId: string, keyId: string): Promise<number> {
  await gw.gateway.recorder?.flush();
  const report = await gw.http.get(`/v1/admin/accounts/${accountId}/usage?start=2026-11-01&end=2026-11-30`).set(gw.admin()).expect(200);
  const entry = (report.body.keys as Array<{ id?: string; hint: string; total: { spend_usd: number } }>).find(
    (key) => key.id === keyId || report.body.keys.length === 1,
  );
  return entry?.total.spend_usd ?? 0;
}

const budgetExceeded = {
  type: 'insufficient_quota',
  code: 'budget_exceeded',
  param: null,
  message: expect.stringContaining("key's daily budget"),
};

describe('spend budgets', () => {
  it('are set on keys and accounts through the admin API, within the account’s', async () => {
    const accountId = await gw.createAccount('Budgets');
    const budget = { amount_usd: 12.5, period: 'month', alert_at: [0.8, 0.5] };
    const account = await gw.http.patch(`/v1/admin/accounts/${accountId}`).set(gw.admin()).send({ budget });
    expect(account.status).toBe(200);
    expect(account.body.budget).toEqual({ amount_usd: 12.5, period: 'month', alert_at: [0.5, 0.8] });

    const tooBig = await gw.http
      .post(`/v1/admin/accounts/${accountId}/keys`)
      .set(gw.admin())
      .send({ name: 'big', budget: { amount_usd: 13, period: 'day' } });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error).toMatchObject({ code: 'invalid_value', param: 'budget' });
    const decimals = await gw.http
      .post(`/v1/admin/accounts/${accountId}/keys`)
      .set(gw.admin())
      .send({ name: 'odd', budget: { amount_usd: 0.0000001, period: 'day' } });
    expect(decimals.status).toBe(400);

    const key = await createKey(accountId, { budget: { amount_usd: 2, period: 'week' } });
    expect((await gw.http.get(`/v1/admin/keys/${key.id}`).set(gw.admin())).body.budget).toEqual({
      amount_usd: 2,
      period: 'week',
      alert_at: [],
    });
    const removed = await gw.http.patch(`/v1/admin/keys/${key.id}`).set(gw.admin()).send({ budget: null });
    expect(removed.body.budget).toBeNull();
    const audit = await gw.http.get(`/v1/admin/audit?account_id=${accountId}`).set(gw.admin());
    const update = audit.body.data.find((entry: { action: string }) => entry.action === 'key.update');
    expect(update.before.budget).toEqual({ amount_usd: 2, period: 'week', alert_at: [] });
    expect(update.after.budget).toBeNull();
  });

  it('refuses with 429 budget_exceeded once the day’s budget is spent, and resets at Shanghai midnight', async () => {
    clock.now = Date.UTC(2026, 10, 21, 15, 50, 0);
    const accountId = await gw.createAccount('Daily');
    const { id, key } = await createKey(accountId, { budget: { amount_usd: 0.0001, period: 'day', alert_at: [0.5] } });
    const { remaining, refused } = await spendUntilRefused(key);
    expect(remaining.length).toBeGreaterThan(1);
    // Each success shows less left, never below zero.
    for (let index = 1; index < remaining.length; index += 1) expect(remaining[index]).toBeLessThan(remaining[index - 1] as number);
    expect(Math.min(...remaining)).toBeGreaterThanOrEqual(0);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: budgetExceeded });
    expect(refused.headers['x-should-retry']).toBe('false');
    expect(refused.headers['retry-after']).toBe(String(SECONDS_TO_MIDNIGHT));
    // The ledger's spend is within the budget, and no more than one more request would have fit.
    const spent = await reportedSpend(accountId, id);
    expect(spent).toBeLessThanOrEqual(0.0001);
    expect(spent).toBeGreaterThan(0.0001 - 2 * (0.0001 - (remaining[0] as number)));
    expect(await gw.gateway.metrics.render()).toMatch(/gateway_budget_alerts_total\{scope="key",threshold="0.5"\} 1/);
    // One warning for the threshold, however many requests were settled past it.
    const alerts = logs.lines().filter((line) => line.msg === 'spend budget alert threshold reached' && line.owner === id);
    expect(alerts).toEqual([
      expect.objectContaining({
        level: 40,
        scope: 'key',
        period: 'day',
        window_start: '2026-11-21',
        threshold: 0.5,
        budget_usd: '0.0001',
        spent_usd: expect.stringMatching(/^0\.0000[5-9]\d*$/),
      }),
    ]);
    // The budget's period, as the report has it.
    const status = await gw.http.get(`/v1/admin/keys/${id}/budget`).set(gw.admin());
    expect(status.body).toEqual({
      budget: { amount_usd: 0.0001, period: 'day', alert_at: [0.5] },
      spent_usd: spent,
      remaining_usd: expect.closeTo(0.0001 - spent, 12),
      period_start: '2026-11-20T16:00:00.000Z',
      resets_at: '2026-11-21T16:00:00.000Z',
    });
    const accountStatus = await gw.http.get(`/v1/admin/accounts/${accountId}/budget`).set(gw.admin());
    expect(accountStatus.body).toEqual({ budget: null, spent_usd: null, remaining_usd: null, period_start: null, resets_at: null });

    clock.now = Date.UTC(2026, 10, 21, 16, 0, 0);
    const nextDay = await chat(key);
    expect(nextDay.status).toBe(200);
  });

  it('a request whose worst case exceeds the whole budget is 400, naming max_tokens or the prompt', async () => {
    const accountId = await gw.createAccount('Impossible');
    const { key } = await createKey(accountId, { budget: { amount_usd: 0.001, period: 'total' } });
    const output = await chat(key, { max_tokens: 10_000 });
    expect(output.status).toBe(400);
    expect(output.body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large', param: 'max_tokens' });
    const prompt = await chat(key, { messages: [{ role: 'user', content: 'word '.repeat(2_000) }] });
    expect(prompt.status).toBe(400);
    expect(prompt.body.error.param).toBe('messages');
    expect((await chat(key)).status).toBe(200);
  });

  it('the account’s budget holds all its keys; a total budget’s 429 has no retry-after', async () => {
    const accountId = await gw.createAccount('Shared');
    await setAccountBudget(accountId, { amount_usd: 0.0001, period: 'total' });
    const first = await createKey(accountId, {});
    const second = await createKey(accountId, {});
    const { refused } = await spendUntilRefused(first.key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain("account's total budget");
    expect(refused.headers['retry-after']).toBeUndefined();
    expect((await chat(second.key)).status).toBe(429);
    // Every model route: the Messages route in Anthropic's shape; a cheap embedding still fits what is left.
    const message = await gw.http
      .post('/v1/messages')
      .set('authorization', `Bearer ${second.key}`)
      .send({ model: 'mock-chat', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.status).toBe(429);
    expect(message.body).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: expect.stringContaining('Budget exceeded') },
    });
    expect(message.headers['x-should-retry']).toBe('false');
    const embedding = await gw.http
      .post('/v1/embeddings')
      .set('authorization', `Bearer ${second.key}`)
      .send({ model: 'mock-embed', input: 'hello' });
    expect(embedding.status).toBe(200);
    expect(Number(embedding.headers['x-gateway-budget-remaining-usd'])).toBeLessThan(0.0001);
  });

  it('when the key’s and the account’s budgets both refuse, retry-after is when the later one resets', async () => {
    clock.now = Date.UTC(2026, 10, 24, 4, 0, 0);
    const accountId = await gw.createAccount('Both');
    await setAccountBudget(accountId, { amount_usd: 0.0001, period: 'month' });
    const { key } = await createKey(accountId, { budget: { amount_usd: 0.0001, period: 'day' } });
    const { refused } = await spendUntilRefused(key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain("account's monthly budget");
    // 2026-11-24 12:00 in Shanghai to December 1st, 00:00: 6.5 days.
    expect(refused.headers['retry-after']).toBe(String(6.5 * 86_400));
  });

  it('spend is the ledger’s: a changed period and a restart keep it', async () => {
    clock.now = Date.UTC(2026, 10, 22, 4, 0, 0);
    const accountId = await gw.createAccount('Ledger');
    const { id, key } = await createKey(accountId, { budget: { amount_usd: 0.0001, period: 'day' } });
    const { refused } = await spendUntilRefused(key);
    expect(refused.status).toBe(429);
    const setWeeklyBudget = (amountUsd: number) =>
      gw.http
        .patch(`/v1/admin/keys/${id}`)
        .set(gw.admin())
        .send({ budget: { amount_usd: amountUsd, period: 'week' } })
        .expect(200);
    // Same day, another period: the ledger's spend of the week still fills it.
    await setWeeklyBudget(0.0001);
    expect((await chat(key)).status).toBe(429);
    // A larger amount leaves room again.
    await setWeeklyBudget(0.0002);
    expect((await chat(key)).status).toBe(200);
    await setWeeklyBudget(0.0001);

    // A second gateway on the same database (a restart) sees the spend.
    await gw.gateway.recorder?.flush();
    const restarted = await startTestGateway({ now: () => clock.now, databaseUrl: gw.databaseUrl });
    try {
      const response = await restarted.http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
      expect(response.status).toBe(429);
      expect(response.body.error.code).toBe('budget_exceeded');
    } finally {
      await restarted.close();
    }
  });

  it('the OpenAI SDK gives up at once on budget_exceeded and on the 400', async () => {
    clock.now = Date.UTC(2026, 10, 23, 4, 0, 0);
    const accountId = await gw.createAccount('SDK');
    const { key } = await createKey(accountId, { budget: { amount_usd: 0.0001, period: 'day' } });
    await spendUntilRefused(key);
    const rejections = async () =>
      Number(
        /gateway_rate_limit_rejections_total\{route="\/v1\/chat\/completions",limit="budget"\} (\d+)/.exec(
          await gw.gateway.metrics.render(),
        )?.[1] ?? 0,
      );
    const before = await rejections();
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.baseUrl}/v1`, maxRetries: 3 });
    const error = await client.chat.completions
      .create({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('budget_exceeded');
    expect(await rejections()).toBe(before + 1);

    const impossible = await client.chat.completions
      .create({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100_000 })
      .catch((caught: unknown) => caught);
    expect(impossible).toBeInstanceOf(OpenAI.BadRequestError);
  });
});
