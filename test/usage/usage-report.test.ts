import { beforeAll, describe, expect, it } from 'vitest';
import {
  blockKey,
  chat,
  chatAt,
  costFemto,
  decimalToNano,
  exactReport,
  femtoToNano,
  MOCK_CHAT_PRICES,
  report,
  revokeKey,
} from './usage-http-helpers';
import { useReportGateway } from './usage-report-gateway';

/**
 * GET /v1/usage/keys through HTTP on a real gateway and database (docs/usage-report.md): which
 * keys are listed and how, tenancy, the route's authentication, and what counts as a request.
 * Requests land on chosen instants through the gateway's injected clock.
 */
const fixture = useReportGateway();
const { clock, newAccount } = fixture;

describe('keys of the account', () => {
  let accountId: string;
  let usageKey: string;
  const created: Record<string, { id: string; key: string; createdAt: string }> = {};

  async function keyAt(iso: string, name: string): Promise<void> {
    clock.set(iso);
    const { id, key } = await fixture.gw.createKey(accountId, { name });
    created[name] = { id, key, createdAt: iso };
  }

  beforeAll(async () => {
    accountId = await fixture.gw.createAccount('listing');
    usageKey = await fixture.gw.createUsageKey(accountId);
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

    await chatAt(fixture.gw, clock, created['revoked-old-usage']?.key ?? '', '2026-01-05T01:00:00.000Z');
    await chatAt(fixture.gw, clock, created['revoked-with-usage']?.key ?? '', '2026-02-15T01:00:00.000Z');
    await chatAt(fixture.gw, clock, created.blocked?.key ?? '', '2026-02-16T01:00:00.000Z');
    await chatAt(fixture.gw, clock, created.zeta?.key ?? '', '2026-02-17T01:00:00.000Z');

    clock.set('2026-02-20T00:00:00.000Z');
    for (const name of ['revoked-old-usage', 'revoked-idle', 'revoked-with-usage']) await revokeKey(fixture.gw, created[name]?.id ?? '');
    await blockKey(fixture.gw, created.blocked?.id ?? '');
  });

  it('orders by created_at, then name; revoked keys only with usage in the range; idle active keys with zeros', async () => {
    const body = await exactReport(fixture.gw, usageKey, { start: '2026-02-01', end: '2026-03-01' });
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
    const later = await exactReport(fixture.gw, usageKey, { start: '2026-02-16', end: '2026-03-01' });
    expect(later.keys.map((entry) => entry.name)).not.toContain('revoked-with-usage');
    expect(later.keys.map((entry) => entry.name)).not.toContain('revoked-idle');

    const january = await exactReport(fixture.gw, usageKey, { start: '2026-01-01', end: '2026-01-31' });
    const names = january.keys.map((entry) => entry.name);
    expect(names[0]).toBe('revoked-old-usage');
    expect(january.keys[0]).toMatchObject({ status: 'REVOKED', total: { requests: 1 } });
    expect(names).not.toContain('revoked-with-usage');
    expect(names).not.toContain('revoked-idle');
  });

  it('a blocked key shows blocked true and keeps its usage', async () => {
    const body = await exactReport(fixture.gw, usageKey, { start: '2026-02-01', end: '2026-03-01' });
    const blocked = body.keys.find((entry) => entry.name === 'blocked');
    expect(blocked).toMatchObject({ status: 'ACTIVE', blocked: true, total: { requests: 1 } });
    for (const entry of body.keys.filter((other) => other.name !== 'blocked')) expect(entry.blocked).toBe(false);
  });

  it('hint is sk-... plus the last four characters, created_at is ISO 8601 UTC with milliseconds', async () => {
    const body = await exactReport(fixture.gw, usageKey, { start: '2026-02-01', end: '2026-03-01' });
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
    await chatAt(fixture.gw, clock, first.key, '2026-07-01T01:00:00.000Z');
    await chatAt(fixture.gw, clock, second.key, '2026-07-01T02:00:00.000Z');
    await chatAt(fixture.gw, clock, second.key, '2026-07-01T03:00:00.000Z');

    const seenByFirst = await exactReport(fixture.gw, first.usageKey, { start: '2026-07-01', end: '2026-07-01' });
    const seenBySecond = await exactReport(fixture.gw, second.usageKey, { start: '2026-07-01', end: '2026-07-01' });
    expect(seenByFirst.keys.map((entry) => [entry.hint, entry.total.requests])).toEqual([[`sk-...${first.key.slice(-4)}`, 1]]);
    expect(seenBySecond.keys.map((entry) => [entry.hint, entry.total.requests])).toEqual([[`sk-...${second.key.slice(-4)}`, 2]]);
  });

  it('an account without keys gets an empty list', async () => {
    const accountId = await fixture.gw.createAccount();
    const body = await exactReport(fixture.gw, await fixture.gw.createUsageKey(accountId));
    expect(body.keys).toEqual([]);
  });
});

describe('authentication of the usage route', () => {
  let account: Awaited<ReturnType<typeof newAccount>>;
  beforeAll(async () => {
    account = await newAccount();
  });

  it('401 missing_api_key without a key', async () => {
    const response = await report(fixture.gw, null);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: { message: expect.any(String), type: 'authentication_error', code: 'missing_api_key', param: null },
    });
  });

  it('401 invalid_api_key with an sk- key, even a valid one', async () => {
    const response = await report(fixture.gw, account.key);
    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  });

  it('401 with an unknown uk- key and with garbage', async () => {
    for (const token of [`uk-${'A'.repeat(48)}`, 'uk-short', 'garbage']) {
      const response = await report(fixture.gw, token);
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('invalid_api_key');
    }
  });

  it('401 with the old uk- key once a new one was created; the new one works', async () => {
    expect((await report(fixture.gw, account.usageKey)).status).toBe(200);
    const replacement = await fixture.gw.createUsageKey(account.accountId);
    const old = await report(fixture.gw, account.usageKey);
    expect(old.status).toBe(401);
    expect(old.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect((await report(fixture.gw, replacement)).status).toBe(200);
  });

  it('the usage key cannot call models', async () => {
    const response = await chat(fixture.gw, account.usageKey, { model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(401);
  });
});

describe('what counts as a request', () => {
  it('a request failing upstream counts once, with no tokens and no spend', async () => {
    const { key, usageKey } = await newAccount();
    const seen = await chatAt(fixture.gw, clock, key, '2026-08-01T01:00:00.000Z', 'fine');
    clock.set('2026-08-01T02:00:00.000Z');
    // The test config retries once: two upstream attempts, still one request.
    const failed = await chat(fixture.gw, key, { model: 'mock-chat', messages: [{ role: 'user', content: 'mock:error:500' }] });
    expect(failed.status).toBe(502);

    const body = await exactReport(fixture.gw, usageKey, { start: '2026-08-01', end: '2026-08-01' });
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
    expect((await chat(fixture.gw, key, { model: 'mock-chat', messages: [] })).status).toBe(400);
    expect((await chat(fixture.gw, key, { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(404);
    const body = await exactReport(fixture.gw, usageKey, { start: '2026-08-02', end: '2026-08-02' });
    expect(body.keys[0]?.total.requests).toBe(0);
  });
});
