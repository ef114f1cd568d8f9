import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../contract';
import { listRoutes } from '../../contract/list-routes';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway';
import { REPORT_TEST_CONFIG } from '../usage/usage-http-helpers';

/**
 * docs/keys-and-accounts.md: nobody ever sees or changes another account's keys or usage. Every admin
 * route needs the admin token (a key of any kind, a wrong token or nothing is 401, and the
 * body says nothing about the data); the usage route shows the caller's account only.
 * (Dashboard sessions scoped to one account are the dashboard's tests.)
 */
const adminRoutes = listRoutes(contract).filter((route) => (route.metadata as { auth?: string } | undefined)?.auth === 'admin');

describe('tenant isolation', () => {
  let gw: TestGateway;
  const accounts: Record<'a' | 'b', { id: string; key: string; keyId: string; keyName: string; usageKey: string }> = {} as never;

  beforeAll(async () => {
    gw = await startTestGateway({ configYaml: REPORT_TEST_CONFIG });
    for (const name of ['a', 'b'] as const) {
      const id = await gw.createAccount(`tenant ${name}`);
      const keyName = `secret project of ${name}`;
      const created = await gw.createKey(id, { name: keyName });
      accounts[name] = { id, key: created.key, keyId: created.id, keyName, usageKey: await gw.createUsageKey(id) };
      const response = await gw.http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${created.key}`)
        .send({ model: 'mock-chat', messages: [{ role: 'user', content: `hello from ${name}` }] });
      expect(response.status).toBe(200);
    }
    await gw.gateway.recorder?.flush();
  });
  afterAll(() => gw?.close());

  it('lists every admin route of the contract', () => {
    expect(adminRoutes.length).toBeGreaterThanOrEqual(14);
  });

  it.each(adminRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s needs the admin token',
    async (_name, route) => {
      const path = route.path.replace(':accountId', accounts.a.id).replace(':keyId', accounts.a.keyId);
      const attempts: Array<[string, string | undefined]> = [
        ['no credentials', undefined],
        ['a wrong token', 'Bearer not-the-admin-token'],
        ['the admin token with one character changed', `Bearer ${TEST_ADMIN_TOKEN.slice(0, -1)}X`],
        ["the account's own API key", `Bearer ${accounts.a.key}`],
        ["the account's usage key", `Bearer ${accounts.a.usageKey}`],
      ];
      for (const [what, authorization] of attempts) {
        let request = gw.http[route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](path);
        if (authorization) request = request.set('authorization', authorization);
        const response = await (route.method === 'GET' ? request : request.send({ name: 'intruder', rpm: 1 }));
        expect(response.status, `${what}: ${response.text}`).toBe(401);
        expect(response.body.error).toMatchObject({ type: 'authentication_error' });
        for (const leak of [accounts.a.keyName, accounts.a.id, accounts.a.key, 'intruder']) expect(response.text).not.toContain(leak);
      }
      // Nothing was changed by the refused calls.
      const key = await gw.http.get(`/v1/admin/keys/${accounts.a.keyId}`).set(gw.admin()).expect(200);
      expect(key.body).toMatchObject({ name: accounts.a.keyName, status: 'ACTIVE', blocked: false, rpm: null });
    },
  );

  it('the usage route shows the caller account only, with its own usage key', async () => {
    for (const [mine, theirs] of [
      ['a', 'b'],
      ['b', 'a'],
    ] as const) {
      const response = await gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${accounts[mine].usageKey}`);
      expect(response.status).toBe(200);
      expect(response.body.keys.map((entry: { name: string }) => entry.name)).toEqual([accounts[mine].keyName]);
      expect(response.body.keys[0].total.requests).toBe(1);
      for (const leak of [accounts[theirs].keyName, accounts[theirs].id, accounts[theirs].keyId]) expect(response.text).not.toContain(leak);
    }
  });

  it('query parameters cannot widen the report to another account', async () => {
    const response = await gw.http
      .get('/v1/usage/keys')
      .query({ account_id: accounts.b.id, accountId: accounts.b.id, key_id: accounts.b.keyId })
      .set('authorization', `Bearer ${accounts.a.usageKey}`);
    expect([200, 400]).toContain(response.status);
    expect(response.text).not.toContain(accounts.b.keyName);
  });

  it('an API key, an admin token or a revoked usage key cannot read the usage route', async () => {
    for (const authorization of [`Bearer ${accounts.a.key}`, `Bearer ${TEST_ADMIN_TOKEN}`, undefined]) {
      const request = gw.http.get('/v1/usage/keys');
      const response = await (authorization ? request.set('authorization', authorization) : request);
      expect(response.status).toBe(401);
      expect(response.text).not.toContain(accounts.a.keyName);
    }
    const old = accounts.b.usageKey;
    accounts.b.usageKey = await gw.createUsageKey(accounts.b.id);
    expect((await gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${old}`)).status).toBe(401);
  });

  it("the operator's per-account report holds that account's keys only", async () => {
    const response = await gw.http.get(`/v1/admin/accounts/${accounts.a.id}/usage`).set(gw.admin());
    expect(response.status).toBe(200);
    expect(response.body.keys.map((entry: { name: string }) => entry.name)).toEqual([accounts.a.keyName]);
    expect(response.text).not.toContain(accounts.b.keyName);
  });
});
