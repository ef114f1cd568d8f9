import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient } from '../../contract/client';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway';

/** The operator's admin routes (docs/keys-and-accounts.md), through the typed ts-rest client. */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const admin = () => createGatewayClient({ baseUrl: gw.baseUrl, apiKey: TEST_ADMIN_TOKEN });

describe('admin routes', () => {
  it('need the admin token', async () => {
    expect((await gw.http.get('/v1/admin/accounts')).status).toBe(401);
    const wrong = await gw.http.get('/v1/admin/accounts').set('authorization', 'Bearer nope');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_api_key');
    const anon = createGatewayClient({ baseUrl: gw.baseUrl });
    expect((await anon.admin.listAccounts()).status).toBe(401);
  });

  it('are disabled without GATEWAY_ADMIN_TOKEN', async () => {
    const bare = await startTestGateway({ env: { GATEWAY_ADMIN_TOKEN: '' } });
    try {
      const response = await bare.http.get('/v1/admin/accounts').set('authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
      expect(response.status).toBe(401);
      expect(response.body.error.message).toMatch(/GATEWAY_ADMIN_TOKEN/);
    } finally {
      await bare.close();
    }
  });

  it('create and list accounts and keys; the full key only once', async () => {
    const client = admin();
    const account = await client.admin.createAccount({ body: { name: 'Acme' } });
    expect(account.status).toBe(201);
    if (account.status !== 201) return;
    expect(account.body).toEqual({
      id: expect.stringMatching(/^acct_/),
      name: 'Acme',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      rpm: null,
      tpm: null,
      models: null,
      budget: null,
    });

    const created = await client.admin.createKey({ params: { accountId: account.body.id }, body: { name: 'prod', rpm: 100, tpm: 5000 } });
    expect(created.status).toBe(201);
    if (created.status !== 201) return;
    expect(created.body.key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(created.body.hint).toBe(`sk-...${created.body.key.slice(-4)}`);
    expect(created.body).toMatchObject({ name: 'prod', status: 'ACTIVE', blocked: false, rpm: 100, tpm: 5000, revoked_at: null });

    const listed = await client.admin.listKeys({ params: { accountId: account.body.id } });
    expect(listed.status).toBe(200);
    if (listed.status !== 200) return;
    expect(listed.body.data).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    const accounts = await client.admin.listAccounts();
    expect(accounts.status === 200 && accounts.body.data.some((entry) => entry.id === account.body.id)).toBe(true);
  });

  it('revoke is final, block toggles, limits change, names change', async () => {
    const client = admin();
    const accountId = await gw.createAccount();
    const { id } = await gw.createKey(accountId);
    const blocked = await client.admin.blockKey({ params: { keyId: id } });
    expect(blocked.status === 200 && blocked.body.blocked).toBe(true);
    const unblocked = await client.admin.unblockKey({ params: { keyId: id } });
    expect(unblocked.status === 200 && unblocked.body.blocked).toBe(false);
    const renamed = await client.admin.updateKey({ params: { keyId: id }, body: { name: 'renamed', rpm: 7, tpm: null } });
    expect(renamed.status === 200 && renamed.body).toMatchObject({ name: 'renamed', rpm: 7, tpm: null });
    const revoked = await client.admin.revokeKey({ params: { keyId: id } });
    expect(revoked.status === 200 && revoked.body).toMatchObject({ status: 'REVOKED', revoked_at: expect.any(String) });
    const again = await client.admin.blockKey({ params: { keyId: id } });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: { code: 'key_revoked' } });
  });

  it('unknown ids are 404 in the envelope; bad bodies 400 with param', async () => {
    const missing = await gw.http.get('/v1/admin/keys/key_nope').set(gw.admin());
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', param: 'keyId' });
    const noAccount = await gw.http.post('/v1/admin/accounts/acct_nope/keys').set(gw.admin()).send({ name: 'x' });
    expect(noAccount.status).toBe(404);
    const bad = await gw.http.post('/v1/admin/accounts').set(gw.admin()).send({ name: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('name');
    const badLimit = await gw.http
      .post(`/v1/admin/accounts/${await gw.createAccount()}/keys`)
      .set(gw.admin())
      .send({ name: 'x', rpm: -1 });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.param).toBe('rpm');
  });

  it('usage query key: rotation replaces the old key at once', async () => {
    const accountId = await gw.createAccount();
    const info = await gw.http.get(`/v1/admin/accounts/${accountId}/usage-key`).set(gw.admin());
    expect(info.body).toEqual({ exists: false, hint: null, created_at: null });
    const first = await gw.createUsageKey(accountId);
    expect(first).toMatch(/^uk-[0-9A-Za-z]{48}$/);
    expect((await gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${first}`)).status).toBe(200);
    const second = await gw.createUsageKey(accountId);
    expect((await gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${first}`)).status).toBe(401);
    expect((await gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${second}`)).status).toBe(200);
    const after = await gw.http.get(`/v1/admin/accounts/${accountId}/usage-key`).set(gw.admin());
    expect(after.body).toMatchObject({ exists: true, hint: `uk-...${second.slice(-4)}` });
  });

  it("the admin usage report is the account's report", async () => {
    const accountId = await gw.createAccount();
    await gw.createKey(accountId, { name: 'only' });
    const report = await gw.http.get(`/v1/admin/accounts/${accountId}/usage`).set(gw.admin());
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({
      object: 'usage.keys',
      timezone: 'Asia/Shanghai',
      keys: [{ name: 'only', total: { requests: 0 } }],
    });
  });
});
