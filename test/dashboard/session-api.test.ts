import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient } from '../../contract/client';
import { createLoginLink, LOGIN_LINK_TTL_MS, operatorSessionHash, SESSION_TTL_MS } from '../../server/sessions/session-operations';
import { BASE_TEST_CONFIG, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway';
import { hashKey } from '../../server/keys/key-text';
import { sessionTokenOf, signIn } from './session-helpers';

/** The dashboard's sign-in API: the cookie's flags, CSRF, sign-out, login links, expiry. */
let clock = Date.parse('2026-06-01T00:00:00.000Z');
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ now: () => clock });
});
afterAll(() => gw.close());

describe('signing in with the admin token', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie scoped to /v1/admin, and answers the session', async () => {
    const response = await gw.http.post('/v1/admin/session').send({ token: TEST_ADMIN_TOKEN });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'dashboard.session',
      role: 'operator',
      account: null,
      csrf_token: expect.stringMatching(/^[0-9a-f]{64}$/),
      expires_at: new Date(clock + SESSION_TTL_MS).toISOString(),
    });
    expect(response.headers['cache-control']).toBe('no-store');
    const cookies = response.headers['set-cookie'] as unknown as string[];
    expect(cookies).toHaveLength(1);
    const attributes = (cookies[0] ?? '').split(';').map((part) => part.trim());
    expect(attributes[0]).toMatch(/^mg_session=[0-9A-Za-z]{48}$/);
    expect(attributes).toEqual(
      expect.arrayContaining([
        'Path=/v1/admin',
        'HttpOnly',
        'SameSite=Strict',
        `Expires=${new Date(clock + SESSION_TTL_MS).toUTCString()}`,
      ]),
    );
    expect(attributes).not.toContain('Secure');
    // Only a hash is stored: of the token together with the admin token's (see below).
    const token = sessionTokenOf(response);
    expect(await gw.store.findDashboardSessionByHash(hashKey(token))).toBeNull();
    const stored = await gw.store.findDashboardSessionByHash(operatorSessionHash(token, hashKey(TEST_ADMIN_TOKEN)));
    expect(stored).toMatchObject({ accountId: null, expiresAt: new Date(clock + SESSION_TTL_MS) });
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('is refused with a wrong token, in the envelope and without a cookie', async () => {
    const response = await gw.http.post('/v1/admin/session').send({ token: 'not-the-admin-token' });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: { message: 'Invalid admin token.', type: 'authentication_error', param: null, code: 'invalid_api_key' },
    });
    expect(response.headers['set-cookie']).toBeUndefined();
    const empty = await gw.http.post('/v1/admin/session').send({ token: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.param).toBe('token');
  });

  it('cannot be forged by another site: a form post (not JSON) is refused', async () => {
    const response = await gw.http
      .post('/v1/admin/session')
      .set('content-type', 'application/x-www-form-urlencoded')
      .send(`token=${TEST_ADMIN_TOKEN}`);
    expect(response.status).toBe(415);
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('marks the cookie Secure when the request came over HTTPS (behind a trusted proxy)', async () => {
    const proxied = await startTestGateway({ configYaml: `server: { trust_proxy: 1 }\n${BASE_TEST_CONFIG}` });
    try {
      const response = await proxied.http.post('/v1/admin/session').set('x-forwarded-proto', 'https').send({ token: TEST_ADMIN_TOKEN });
      expect(response.status).toBe(200);
      expect(String(response.headers['set-cookie'])).toMatch(/; Secure/);
    } finally {
      await proxied.close();
    }
  });
});

describe('a session cookie', () => {
  /** POST /v1/admin/accounts with a session's cookie and a CSRF token. */
  const createAccountAs = (cookie: string, csrf: string, name: string) =>
    gw.http.post('/v1/admin/accounts').set('cookie', cookie).set('x-csrf-token', csrf).send({ name });

  it('authenticates reads, and GET /v1/admin/session answers the same CSRF token', async () => {
    const session = await signIn(gw, TEST_ADMIN_TOKEN);
    const me = await gw.http.get('/v1/admin/session').set('cookie', session.cookie);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ role: 'operator', csrf_token: session.csrf });
    const accounts = await gw.http.get('/v1/admin/accounts').set('cookie', session.cookie);
    expect(accounts.status).toBe(200);
    expect((await gw.http.get('/v1/admin/session')).status).toBe(401);
  });

  it('needs the x-csrf-token header on every state-changing request', async () => {
    const session = await signIn(gw, TEST_ADMIN_TOKEN);
    const accountId = await gw.createAccount();
    const keyId = (await gw.createKey(accountId)).id;
    const attempts = [
      () => gw.http.post('/v1/admin/accounts').send({ name: 'csrf' }),
      () => gw.http.post(`/v1/admin/accounts/${accountId}/keys`).send({ name: 'csrf' }),
      () => gw.http.patch(`/v1/admin/keys/${keyId}`).send({ name: 'csrf' }),
      () => gw.http.post(`/v1/admin/keys/${keyId}/revoke`),
      () => gw.http.post(`/v1/admin/accounts/${accountId}/usage-key`),
      () => gw.http.delete('/v1/admin/session'),
    ];
    for (const attempt of attempts) {
      for (const csrf of [undefined, 'f'.repeat(64), session.csrf.toUpperCase(), 'short']) {
        const request = attempt().set('cookie', session.cookie);
        if (csrf !== undefined) request.set('x-csrf-token', csrf);
        const response = await request;
        expect(response.status).toBe(403);
        expect(response.body.error).toMatchObject({ type: 'permission_error', code: 'csrf_token_invalid' });
      }
    }
    const key = await gw.http.get(`/v1/admin/keys/${keyId}`).set(gw.admin());
    expect(key.body).toMatchObject({ status: 'ACTIVE', name: 'test key' });
    const created = await createAccountAs(session.cookie, session.csrf, 'with csrf');
    expect(created.status).toBe(201);
  });

  it('of another session does not fit: the CSRF token is bound to its session', async () => {
    const first = await signIn(gw, TEST_ADMIN_TOKEN);
    const second = await signIn(gw, TEST_ADMIN_TOKEN);
    const response = await createAccountAs(first.cookie, second.csrf, 'x');
    expect(response.status).toBe(403);
  });

  it('is not needed with the admin token: bearer requests carry no ambient authority', async () => {
    const response = await gw.http.post('/v1/admin/accounts').set(gw.admin()).send({ name: 'bearer' });
    expect(response.status).toBe(201);
  });

  it('is never sent to, nor accepted by, the model and usage routes', async () => {
    const session = await signIn(gw, TEST_ADMIN_TOKEN);
    const chat = await gw.http
      .post('/v1/chat/completions')
      .set('cookie', session.cookie)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(401);
    expect((await gw.http.get('/v1/usage/keys').set('cookie', session.cookie)).status).toBe(401);
  });
});

describe('signing out', () => {
  it('ends the session and clears the cookie', async () => {
    const session = await signIn(gw, TEST_ADMIN_TOKEN);
    const response = await gw.http.delete('/v1/admin/session').set('cookie', session.cookie).set('x-csrf-token', session.csrf);
    expect(response.status).toBe(204);
    expect(String(response.headers['set-cookie'])).toMatch(
      /^mg_session=; Path=\/v1\/admin; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/,
    );
    const after = await gw.http.get('/v1/admin/accounts').set('cookie', session.cookie);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toMatch(/sign in again/);
    // A dead cookie is cleared on the way.
    expect(String(after.headers['set-cookie'])).toMatch(/^mg_session=;/);
  });
});

describe('login links (account owners)', () => {
  it('sign the owner in once, to their account only', async () => {
    const accountId = await gw.createAccount('Owner Co');
    const link = await createGatewayClient({ baseUrl: gw.baseUrl, apiKey: TEST_ADMIN_TOKEN }).admin.createLoginLink({
      params: { accountId },
    });
    expect(link.status).toBe(201);
    if (link.status !== 201) return;
    expect(link.body.url).toMatch(new RegExp(`^${gw.baseUrl}/dashboard/login#token=lt-[0-9A-Za-z]{48}$`));
    expect(link.body.expires_at).toBe(new Date(clock + LOGIN_LINK_TTL_MS).toISOString());
    const token = link.body.url.split('#token=')[1] ?? '';

    const owner = await signIn(gw, token);
    expect(owner.body).toMatchObject({ role: 'account', account: { id: accountId, name: 'Owner Co' } });
    const again = await gw.http.post('/v1/admin/session').send({ token });
    expect(again.status).toBe(401);
    expect(again.body.error.message).toMatch(/invalid, expired or already used/);

    const accounts = await gw.http.get('/v1/admin/accounts').set('cookie', owner.cookie);
    expect(accounts.body.data.map((account: { id: string }) => account.id)).toEqual([accountId]);
  });

  it('expire after 24 hours, and sessions after 12', async () => {
    const accountId = await gw.createAccount();
    const link = await createLoginLink({ store: gw.store, now: () => clock }, accountId, gw.baseUrl);
    const token = link.url.split('#token=')[1] ?? '';
    const started = clock;
    try {
      clock = started + LOGIN_LINK_TTL_MS;
      expect((await gw.http.post('/v1/admin/session').send({ token })).status).toBe(401);
      const session = await signIn(gw, TEST_ADMIN_TOKEN);
      clock += SESSION_TTL_MS - 1;
      expect((await gw.http.get('/v1/admin/session').set('cookie', session.cookie)).status).toBe(200);
      clock += 1;
      expect((await gw.http.get('/v1/admin/session').set('cookie', session.cookie)).status).toBe(401);
    } finally {
      clock = started;
    }
  });

  it('work without GATEWAY_ADMIN_TOKEN; the operator cannot sign in then', async () => {
    const bare = await startTestGateway({ env: { GATEWAY_ADMIN_TOKEN: '' } });
    try {
      await bare.store.createAccount({ id: 'acct_bare', name: 'Bare', createdAt: new Date() });
      const link = await createLoginLink({ store: bare.store, now: Date.now }, 'acct_bare', bare.baseUrl);
      const owner = await signIn(bare, link.url.split('#token=')[1] ?? '');
      expect((await bare.http.get('/v1/admin/accounts/acct_bare/keys').set('cookie', owner.cookie)).status).toBe(200);
      const operator = await bare.http.post('/v1/admin/session').send({ token: TEST_ADMIN_TOKEN });
      expect(operator.status).toBe(401);
      expect(operator.body.error.message).toMatch(/GATEWAY_ADMIN_TOKEN/);
    } finally {
      await bare.close();
    }
  });

  it('are refused for unknown accounts', async () => {
    const response = await gw.http.post('/v1/admin/accounts/acct_nope/login-link').set(gw.admin());
    expect(response.status).toBe(404);
    expect(response.body.error.param).toBe('accountId');
  });
});

describe('changing GATEWAY_ADMIN_TOKEN', () => {
  it("ends the operator sessions signed in with the old token; account owners' sessions live on", async () => {
    const operator = await signIn(gw, TEST_ADMIN_TOKEN);
    const accountId = await gw.createAccount();
    const link = await createLoginLink({ store: gw.store, now: () => clock }, accountId, gw.baseUrl);
    const owner = await signIn(gw, link.url.split('#token=')[1] ?? '');

    // The same database, restarted with another admin token.
    const rotated = await startTestGateway({
      databaseUrl: gw.databaseUrl,
      now: () => clock,
      env: { GATEWAY_ADMIN_TOKEN: 'a-new-admin-token-9876543210' },
    });
    try {
      const stale = await rotated.http.get('/v1/admin/accounts').set('cookie', operator.cookie);
      expect(stale.status).toBe(401);
      expect(stale.body.error.message).toMatch(/session has expired or was ended/);
      expect(String(stale.headers['set-cookie'])).toMatch(/^mg_session=;/);
      expect((await rotated.http.get(`/v1/admin/accounts/${accountId}/keys`).set('cookie', owner.cookie)).status).toBe(200);
      expect((await rotated.http.post('/v1/admin/session').send({ token: TEST_ADMIN_TOKEN })).status).toBe(401);
      const fresh = await signIn(rotated, 'a-new-admin-token-9876543210');
      expect((await rotated.http.get('/v1/admin/accounts').set('cookie', fresh.cookie)).status).toBe(200);
    } finally {
      await rotated.close();
    }
    // Where the old token is still the token, its session still works.
    expect((await gw.http.get('/v1/admin/accounts').set('cookie', operator.cookie)).status).toBe(200);
  });
});
