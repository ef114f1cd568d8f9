import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import {
  blockKey,
  chat,
  chatAt,
  costFemto,
  decimalToNano,
  exactReport,
  expectedError,
  femtoToNano,
  MOCK_CHAT_PRICES,
  report,
  REPORT_TEST_CONFIG,
  revokeKey,
  TestClock,
} from './usage-http-helpers';

/**
 * GET /v1/usage/keys through HTTP on a real gateway and database (docs/usage-report.md): day
 * bucketing in Asia/Shanghai, ranges and their errors, which keys are listed and how.
 * Requests land on chosen instants through the gateway's injected clock.
 */
const clock = new TestClock('2026-01-01T00:00:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ configYaml: REPORT_TEST_CONFIG, now: clock.now });
});
afterAll(() => gw?.close());

/** A new account with one key and its usage query key. */
async function newAccount(keyName = 'main'): Promise<{ accountId: string; key: string; keyId: string; usageKey: string }> {
  const accountId = await gw.createAccount();
  const { id, key } = await gw.createKey(accountId, { name: keyName });
  return { accountId, key, keyId: id, usageKey: await gw.createUsageKey(accountId) };
}

describe('days are Asia/Shanghai calendar days', () => {
  it('15:59:59.999Z is still the same day, 16:00:00.000Z is the next', async () => {
    const { key, usageKey } = await newAccount();
    const seen = [
      await chatAt(gw, clock, key, '2026-03-01T15:59:59.999Z', 'last of the first'),
      await chatAt(gw, clock, key, '2026-03-01T16:00:00.000Z', 'first of the second day'),
      await chatAt(gw, clock, key, '2026-02-28T16:00:00.000Z', 'midnight opening the first'),
      await chatAt(gw, clock, key, '2026-03-02T15:59:59.999Z', 'last of the second day'),
    ];
    const body = await exactReport(gw, usageKey, { start: '2026-02-28', end: '2026-03-03' });
    const [entry] = body.keys;
    const day = (indexes: number[]) => ({
      requests: indexes.length,
      prompt_tokens: indexes.reduce((sum, index) => sum + (seen[index]?.prompt_tokens ?? 0), 0),
      completion_tokens: indexes.reduce((sum, index) => sum + (seen[index]?.completion_tokens ?? 0), 0),
    });
    expect(
      entry?.daily.map(({ date, requests, prompt_tokens, completion_tokens }) => ({ date, requests, prompt_tokens, completion_tokens })),
    ).toEqual([
      { date: '2026-03-01', ...day([0, 2]) },
      { date: '2026-03-02', ...day([1, 3]) },
    ]);
  });

  it('across a month end and a year end (2026-12-31T16:00Z is 2027-01-01)', async () => {
    const { key, usageKey } = await newAccount();
    await chatAt(gw, clock, key, '2026-04-30T15:59:59.999Z');
    await chatAt(gw, clock, key, '2026-04-30T16:00:00.000Z');
    await chatAt(gw, clock, key, '2026-12-31T15:59:59.999Z');
    await chatAt(gw, clock, key, '2026-12-31T16:00:00.000Z');
    await chatAt(gw, clock, key, '2026-12-31T23:59:59.999Z');

    const spring = await exactReport(gw, usageKey, { start: '2026-04-30', end: '2026-05-01' });
    expect(spring.keys[0]?.daily.map((row) => [row.date, row.requests])).toEqual([
      ['2026-04-30', 1],
      ['2026-05-01', 1],
    ]);
    const newYear = await exactReport(gw, usageKey, { start: '2026-12-31', end: '2027-01-01' });
    expect(newYear.keys[0]?.daily.map((row) => [row.date, row.requests])).toEqual([
      ['2026-12-31', 1],
      ['2027-01-01', 2],
    ]);
    expect(newYear.keys[0]?.total.requests).toBe(3);
    // The range is inclusive at both ends and nothing outside it leaks in.
    const justNewYear = await exactReport(gw, usageKey, { start: '2027-01-01', end: '2027-01-01' });
    expect(justNewYear.keys[0]?.daily.map((row) => row.date)).toEqual(['2027-01-01']);
  });

  it('a leap day exists in 2028 (2028-02-28T16:00Z is 2028-02-29)', async () => {
    const { key, usageKey } = await newAccount();
    await chatAt(gw, clock, key, '2028-02-28T16:00:00.000Z');
    const body = await exactReport(gw, usageKey, { start: '2028-02-29', end: '2028-03-01' });
    expect(body.keys[0]?.daily.map((row) => row.date)).toEqual(['2028-02-29']);
  });

  it('daily rows ascend by date, days without requests have no row, totals are their sums', async () => {
    const { key, usageKey } = await newAccount();
    // Out of order on purpose, with a gap of idle days.
    for (const instant of [
      '2026-06-20T02:00:00.000Z',
      '2026-06-03T02:00:00.000Z',
      '2026-06-10T02:00:00.000Z',
      '2026-06-03T05:00:00.000Z',
    ]) {
      await chatAt(gw, clock, key, instant, `request at ${instant}`);
    }
    const body = await exactReport(gw, usageKey, { start: '2026-06-01', end: '2026-06-30' });
    const [entry] = body.keys;
    expect(entry?.daily.map((row) => [row.date, row.requests])).toEqual([
      ['2026-06-03', 2],
      ['2026-06-10', 1],
      ['2026-06-20', 1],
    ]);
    const daily = entry?.daily ?? [];
    expect(entry?.total.requests).toBe(daily.reduce((sum, row) => sum + row.requests, 0));
    expect(entry?.total.prompt_tokens).toBe(daily.reduce((sum, row) => sum + row.prompt_tokens, 0));
    expect(entry?.total.completion_tokens).toBe(daily.reduce((sum, row) => sum + row.completion_tokens, 0));
    expect(decimalToNano(entry?.total.spend_usd ?? '')).toBe(daily.reduce((sum, row) => sum + decimalToNano(row.spend_usd), 0n));
  });
});

describe('range', () => {
  let usageKey: string;
  beforeAll(async () => {
    const account = await newAccount();
    usageKey = account.usageKey;
    // One request on each side of the default range of "today = 2026-03-02".
    await chatAt(gw, clock, account.key, '2026-01-31T12:00:00.000Z'); // 2026-01-31 (end - 30): outside
    await chatAt(gw, clock, account.key, '2026-02-01T12:00:00.000Z'); // 2026-02-01 (end - 29): inside
    await chatAt(gw, clock, account.key, '2026-03-01T16:30:00.000Z'); // 2026-03-02 (today): inside
  });

  it.each([
    ['2026-03-01T15:59:59.999Z', '2026-01-31', '2026-03-01'],
    ['2026-03-01T16:00:00.000Z', '2026-02-01', '2026-03-02'],
    ['2026-12-31T16:00:00.000Z', '2026-12-03', '2027-01-01'],
    ['2028-03-14T16:00:00.000Z', '2028-02-15', '2028-03-15'], // back across a leap February
  ])('at %s the default range is %s .. %s (end = today in Asia/Shanghai, start = end - 29 days)', async (now, start, end) => {
    clock.set(now);
    const body = await exactReport(gw, usageKey);
    expect({ start: body.start, end: body.end, timezone: body.timezone, object: body.object }).toEqual({
      start,
      end,
      timezone: 'Asia/Shanghai',
      object: 'usage.keys',
    });
  });

  it('the default range counts end - 29 days and today, not end - 30', async () => {
    clock.set('2026-03-02T04:00:00.000Z');
    const body = await exactReport(gw, usageKey);
    expect(body.keys[0]?.daily.map((row) => row.date)).toEqual(['2026-02-01', '2026-03-02']);
  });

  it('only end given: start = end - 29 days; only start given: end = today', async () => {
    clock.set('2026-03-02T04:00:00.000Z');
    expect(await exactReport(gw, usageKey, { end: '2026-03-31' })).toMatchObject({ start: '2026-03-02', end: '2026-03-31' });
    expect(await exactReport(gw, usageKey, { end: '2026-03-01' })).toMatchObject({ start: '2026-01-31', end: '2026-03-01' });
    expect(await exactReport(gw, usageKey, { start: '2026-01-01' })).toMatchObject({ start: '2026-01-01', end: '2026-03-02' });
  });

  it('an explicit range is echoed and only its days are reported', async () => {
    const body = await exactReport(gw, usageKey, { start: '2026-01-31', end: '2026-02-01' });
    expect(body).toMatchObject({ start: '2026-01-31', end: '2026-02-01' });
    expect(body.keys[0]?.daily.map((row) => row.date)).toEqual(['2026-01-31', '2026-02-01']);
  });

  it('a one-day range (start = end) is allowed', async () => {
    const body = await exactReport(gw, usageKey, { start: '2026-02-01', end: '2026-02-01' });
    expect(body.keys[0]?.daily.map((row) => row.date)).toEqual(['2026-02-01']);
  });

  it.each([
    ['2026-01-01', '2026-04-02'],
    ['2026-10-01', '2026-12-31'],
    ['2027-12-01', '2028-03-01'], // across a year end and a leap February
  ])('exactly 92 days inclusive is allowed: %s .. %s', async (start, end) => {
    const response = await report(gw, usageKey, { start, end });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ start, end });
  });

  it.each([
    ['2026-01-01', '2026-04-03'],
    ['2026-10-01', '2027-01-01'],
    ['2027-12-01', '2028-03-02'],
    ['2020-01-01', '2026-01-01'],
  ])('93 days or more (end - start >= 92 days) is 400 range_too_large: %s .. %s', async (start, end) => {
    const response = await report(gw, usageKey, { start, end });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('range_too_large', 'start'));
  });

  it('only start given: 92 days up to today is allowed, 93 days are too many', async () => {
    clock.set('2026-04-02T04:00:00.000Z'); // today = 2026-04-02
    expect((await report(gw, usageKey, { start: '2026-01-01' })).status).toBe(200);
    const response = await report(gw, usageKey, { start: '2025-12-31' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('range_too_large', 'start'));
  });

  it('start after end is 400 invalid_range, also when start is after the default end (today)', async () => {
    const explicit = await report(gw, usageKey, { start: '2026-03-02', end: '2026-03-01' });
    expect(explicit.status).toBe(400);
    expect(explicit.body).toEqual(expectedError('invalid_range', 'start'));
    const yearApart = await report(gw, usageKey, { start: '2027-01-01', end: '2026-12-31' });
    expect(yearApart.body).toEqual(expectedError('invalid_range', 'start'));

    clock.set('2026-03-01T15:59:59.999Z'); // today = 2026-03-01
    const future = await report(gw, usageKey, { start: '2026-03-02' });
    expect(future.status).toBe(400);
    expect(future.body).toEqual(expectedError('invalid_range', 'start'));
  });

  const notDates = [
    '2026-02-30',
    '2026-02-29', // 2026 is not a leap year
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-1-5',
    '2026-01-5',
    '26-01-05',
    '20260105',
    '2026/01/05',
    '2026-01-05T00:00:00Z',
    ' 2026-01-05',
    '2026-01-05 ',
    '+2026-01-05',
    'garbage',
    'null',
    '',
  ];
  it.each(notDates.map((value) => [value]))('start = %j is 400 invalid_date with param start', async (value) => {
    const response = await report(gw, usageKey, { start: value, end: '2026-03-01' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_date', 'start'));
  });

  it.each(notDates.map((value) => [value]))('end = %j is 400 invalid_date with param end', async (value) => {
    const response = await report(gw, usageKey, { start: '2026-02-01', end: value });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_date', 'end'));
  });

  it('a malformed end is reported even without start (the default start depends on it)', async () => {
    const response = await report(gw, usageKey, { end: '2026-02-30' });
    expect(response.body).toEqual(expectedError('invalid_date', 'end'));
  });

  it('2028-02-29 is a real date', async () => {
    expect((await report(gw, usageKey, { start: '2028-02-29', end: '2028-02-29' })).status).toBe(200);
  });

  it('a repeated query parameter is a 400 naming it', async () => {
    const response = await gw.http.get('/v1/usage/keys?start=2026-02-01&start=2026-02-02').set('authorization', `Bearer ${usageKey}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param: 'start' });
  });
});

describe('keys of the account', () => {
  let accountId: string;
  let usageKey: string;
  const created: Record<string, { id: string; key: string; createdAt: string }> = {};

  async function keyAt(iso: string, name: string): Promise<void> {
    clock.set(iso);
    const { id, key } = await gw.createKey(accountId, { name });
    created[name] = { id, key, createdAt: iso };
  }

  beforeAll(async () => {
    accountId = await gw.createAccount('listing');
    usageKey = await gw.createUsageKey(accountId);
    // Created out of name order, two at the same instant.
    await keyAt('2025-12-05T00:00:00.000Z', 'revoked-old-usage');
    await keyAt('2025-12-06T00:00:00.000Z', 'revoked-idle');
    await keyAt('2025-12-10T00:00:00.000Z', 'zeta');
    await keyAt('2025-12-20T10:20:30.456Z', 'beta');
    await keyAt('2025-12-20T10:20:30.456Z', 'alpha');
    await keyAt('2025-12-20T10:20:30.457Z', 'Aardvark');
    await keyAt('2025-12-21T00:00:00.000Z', 'revoked-with-usage');
    await keyAt('2025-12-22T00:00:00.000Z', 'blocked');
    await keyAt('2026-03-05T00:00:00.000Z', 'created-after-range');

    await chatAt(gw, clock, created['revoked-old-usage']?.key ?? '', '2026-01-05T01:00:00.000Z');
    await chatAt(gw, clock, created['revoked-with-usage']?.key ?? '', '2026-02-15T01:00:00.000Z');
    await chatAt(gw, clock, created.blocked?.key ?? '', '2026-02-16T01:00:00.000Z');
    await chatAt(gw, clock, created.zeta?.key ?? '', '2026-02-17T01:00:00.000Z');

    clock.set('2026-02-20T00:00:00.000Z');
    for (const name of ['revoked-old-usage', 'revoked-idle', 'revoked-with-usage']) await revokeKey(gw, created[name]?.id ?? '');
    await blockKey(gw, created.blocked?.id ?? '');
  });

  it('orders by created_at, then name; revoked keys only with usage in the range; idle active keys with zeros', async () => {
    const body = await exactReport(gw, usageKey, { start: '2026-02-01', end: '2026-03-01' });
    expect(body.keys.map((entry) => [entry.name, entry.status])).toEqual([
      ['zeta', 'ACTIVE'],
      ['alpha', 'ACTIVE'],
      ['beta', 'ACTIVE'],
      ['Aardvark', 'ACTIVE'],
      ['revoked-with-usage', 'REVOKED'],
      ['blocked', 'ACTIVE'],
      // Every ACTIVE key, also one created after the range.
      ['created-after-range', 'ACTIVE'],
    ]);
    const alpha = body.keys.find((entry) => entry.name === 'alpha');
    expect(alpha?.total).toEqual({ spend_usd: '0', requests: 0, prompt_tokens: 0, completion_tokens: 0 });
    expect(alpha?.daily).toEqual([]);
    const revoked = body.keys.find((entry) => entry.name === 'revoked-with-usage');
    expect(revoked?.daily.map((row) => [row.date, row.requests])).toEqual([['2026-02-15', 1]]);
  });

  it('a revoked key drops out of a range without its usage, and comes back in one with it', async () => {
    const later = await exactReport(gw, usageKey, { start: '2026-02-16', end: '2026-03-01' });
    expect(later.keys.map((entry) => entry.name)).not.toContain('revoked-with-usage');
    expect(later.keys.map((entry) => entry.name)).not.toContain('revoked-idle');

    const january = await exactReport(gw, usageKey, { start: '2026-01-01', end: '2026-01-31' });
    const names = january.keys.map((entry) => entry.name);
    expect(names[0]).toBe('revoked-old-usage');
    expect(january.keys[0]).toMatchObject({ status: 'REVOKED', total: { requests: 1 } });
    expect(names).not.toContain('revoked-with-usage');
    expect(names).not.toContain('revoked-idle');
  });

  it('a blocked key shows blocked true and keeps its usage', async () => {
    const body = await exactReport(gw, usageKey, { start: '2026-02-01', end: '2026-03-01' });
    const blocked = body.keys.find((entry) => entry.name === 'blocked');
    expect(blocked).toMatchObject({ status: 'ACTIVE', blocked: true, total: { requests: 1 } });
    for (const entry of body.keys.filter((other) => other.name !== 'blocked')) expect(entry.blocked).toBe(false);
  });

  it('hint is sk-... plus the last four characters, created_at is ISO 8601 UTC with milliseconds', async () => {
    const body = await exactReport(gw, usageKey, { start: '2026-02-01', end: '2026-03-01' });
    for (const entry of body.keys) {
      const source = created[entry.name];
      expect(entry.hint).toMatch(/^sk-\.\.\.[0-9A-Za-z]{4}$/);
      expect(entry.hint).toBe(`sk-...${source?.key.slice(-4)}`);
      expect(entry.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(entry.created_at).toBe(source?.createdAt);
      expect(Object.keys(entry).sort()).toEqual(['blocked', 'created_at', 'daily', 'hint', 'name', 'status', 'total']);
      expect(Object.keys(entry.total).sort()).toEqual(['completion_tokens', 'prompt_tokens', 'requests', 'spend_usd']);
      for (const row of entry.daily) {
        expect(Object.keys(row).sort()).toEqual(['completion_tokens', 'date', 'prompt_tokens', 'requests', 'spend_usd']);
      }
    }
    // The whole-second instant keeps its ".000".
    expect(body.keys[0]?.created_at).toBe('2025-12-10T00:00:00.000Z');
  });
});

describe('tenancy', () => {
  it("two accounts never see each other's keys or usage", async () => {
    const first = await newAccount('shared-name');
    const second = await newAccount('shared-name');
    await chatAt(gw, clock, first.key, '2026-07-01T01:00:00.000Z');
    await chatAt(gw, clock, second.key, '2026-07-01T02:00:00.000Z');
    await chatAt(gw, clock, second.key, '2026-07-01T03:00:00.000Z');

    const seenByFirst = await exactReport(gw, first.usageKey, { start: '2026-07-01', end: '2026-07-01' });
    const seenBySecond = await exactReport(gw, second.usageKey, { start: '2026-07-01', end: '2026-07-01' });
    expect(seenByFirst.keys.map((entry) => [entry.hint, entry.total.requests])).toEqual([[`sk-...${first.key.slice(-4)}`, 1]]);
    expect(seenBySecond.keys.map((entry) => [entry.hint, entry.total.requests])).toEqual([[`sk-...${second.key.slice(-4)}`, 2]]);
  });

  it('an account without keys gets an empty list', async () => {
    const accountId = await gw.createAccount();
    const body = await exactReport(gw, await gw.createUsageKey(accountId));
    expect(body.keys).toEqual([]);
  });
});

describe('authentication of the usage route', () => {
  let account: Awaited<ReturnType<typeof newAccount>>;
  beforeAll(async () => {
    account = await newAccount();
  });

  it('401 missing_api_key without a key', async () => {
    const response = await report(gw, null);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: { message: expect.any(String), type: 'authentication_error', code: 'missing_api_key', param: null },
    });
  });

  it('401 invalid_api_key with an sk- key, even a valid one', async () => {
    const response = await report(gw, account.key);
    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  });

  it('401 with an unknown uk- key and with garbage', async () => {
    for (const token of [`uk-${'A'.repeat(48)}`, 'uk-short', 'garbage']) {
      const response = await report(gw, token);
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('invalid_api_key');
    }
  });

  it('401 with the old uk- key once a new one was created; the new one works', async () => {
    expect((await report(gw, account.usageKey)).status).toBe(200);
    const replacement = await gw.createUsageKey(account.accountId);
    const old = await report(gw, account.usageKey);
    expect(old.status).toBe(401);
    expect(old.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect((await report(gw, replacement)).status).toBe(200);
  });

  it('the usage key cannot call models', async () => {
    const response = await chat(gw, account.usageKey, { model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(401);
  });
});

describe('what counts as a request', () => {
  it('a request failing upstream counts once, with no tokens and no spend', async () => {
    const { key, usageKey } = await newAccount();
    const seen = await chatAt(gw, clock, key, '2026-08-01T01:00:00.000Z', 'fine');
    clock.set('2026-08-01T02:00:00.000Z');
    // The test config retries once: two upstream attempts, still one request.
    const failed = await chat(gw, key, { model: 'mock-chat', messages: [{ role: 'user', content: 'mock:error:500' }] });
    expect(failed.status).toBe(502);

    const body = await exactReport(gw, usageKey, { start: '2026-08-01', end: '2026-08-01' });
    const expectedNano = femtoToNano(costFemto(MOCK_CHAT_PRICES, seen.prompt_tokens, seen.completion_tokens));
    expect(body.keys[0]?.total).toMatchObject({
      requests: 2,
      prompt_tokens: seen.prompt_tokens,
      completion_tokens: seen.completion_tokens,
    });
    expect(decimalToNano(body.keys[0]?.total.spend_usd ?? '')).toBe(expectedNano);
  });

  it('a request refused before any model call (validation, unknown model) is not usage', async () => {
    const { key, usageKey } = await newAccount();
    clock.set('2026-08-02T01:00:00.000Z');
    expect((await chat(gw, key, { model: 'mock-chat', messages: [] })).status).toBe(400);
    expect((await chat(gw, key, { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(404);
    const body = await exactReport(gw, usageKey, { start: '2026-08-02', end: '2026-08-02' });
    expect(body.keys[0]?.total.requests).toBe(0);
  });
});
