import { isAppRouteNoBody, type AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, type AdminScope } from '../../contract';
import { listRoutes } from '../../contract/list-routes';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway';
import { signIn, signInAsOwner, type TestSession } from './session-helpers';

/*
 * docs/keys-and-accounts.md, "nobody ever sees or changes another account's keys or usage", for the
 * dashboard: every admin route of the contract, called by account A's owner with account
 * B's ids, must fail without touching B. The table is the contract itself, so a new admin
 * route is covered (and must get a sample body below) the day it is added.
 */
const SAMPLE_BODIES: Record<string, unknown> = {
  'admin.createAccount': { name: 'Intruder Inc' },
  'admin.createKey': { name: 'planted', rpm: 1 },
  'admin.updateKey': { name: 'renamed by A', rpm: 1 },
  'admin.updateAccount': { rpm: 1 },
  'admin.rotateKey': { grace_seconds: 0 },
};

const adminRoutes = listRoutes(contract.admin, 'admin');
const scopeOf = (route: AppRoute) => (route.metadata as { scope?: AdminScope }).scope;

let gw: TestGateway;
let owner: TestSession;
const a = { accountId: '', keyId: '' };
const b = { accountId: '', keyId: '', key: '' };

beforeAll(async () => {
  gw = await startTestGateway();
  a.accountId = await gw.createAccount('Account A');
  a.keyId = (await gw.createKey(a.accountId, { name: 'a key' })).id;
  b.accountId = await gw.createAccount('Account B');
  const bKey = await gw.createKey(b.accountId, { name: 'b key' });
  b.keyId = bKey.id;
  b.key = bKey.key;
  owner = await signInAsOwner(gw, a.accountId);
});
afterAll(() => gw.close());

function call(route: AppRoute & { name: string }, ids: { accountId: string; keyId: string }, session: TestSession) {
  const path = route.path.replace(':accountId', ids.accountId).replace(':keyId', ids.keyId);
  const method = route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
  const request = gw.http[method](path).set('cookie', session.cookie).set('x-csrf-token', session.csrf);
  if (route.method === 'GET' || route.method === 'DELETE') return request;
  if ('body' in route && isAppRouteNoBody(route.body)) return request;
  const body = SAMPLE_BODIES[route.name];
  if (body === undefined) throw new Error(`add a sample body for ${route.name} to SAMPLE_BODIES`);
  return request.send(body as object);
}

describe('an account owner’s session, on every admin route', () => {
  it('covers every admin route, each declaring a scope', () => {
    expect(adminRoutes.length).toBeGreaterThanOrEqual(14);
    for (const route of adminRoutes) expect(['operator', 'accounts', 'account', 'key'], route.name).toContain(scopeOf(route));
  });

  it.each(adminRoutes.map((route) => [route.name, route] as const))('%s: another account’s ids are refused', async (_name, route) => {
    const response = await call(route, b, owner);
    const scope = scopeOf(route);
    if (scope === 'accounts') {
      expect(response.status).toBe(200);
      // The list of accounts, or the audit log: only account A's.
      const ids = response.body.data.map((entry: { id: string; account_id?: string }) => entry.account_id ?? entry.id);
      expect(ids.length).toBeGreaterThan(0);
      expect(new Set(ids)).toEqual(new Set([a.accountId]));
      return;
    }
    if (scope === 'operator') {
      expect(response.status).toBe(403);
      expect(response.body).toEqual({
        error: { type: 'permission_error', code: 'operator_only', param: null, message: expect.any(String) },
      });
      return;
    }
    // Exactly the answer for an id that does not exist: nothing to learn by probing.
    const missing = await call(route, { accountId: 'acct_doesnotexist', keyId: 'key_doesnotexist' }, owner);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'not_found',
        param: scope === 'key' ? 'keyId' : 'accountId',
        message: expect.any(String),
      },
    });
    expect(response.body.error.message.replace(/"[^"]+"/, 'ID')).toBe(missing.body.error.message.replace(/"[^"]+"/, 'ID'));
  });

  it.each(adminRoutes.filter((route) => scopeOf(route) !== 'operator').map((route) => [route.name, route] as const))(
    '%s: its own account’s ids work',
    async (_name, route) => {
      // A fresh key per route: revoking one must not spoil the next.
      const keyId = (await gw.createKey(a.accountId, { name: `own ${route.name}` })).id;
      const response = await call(route, { accountId: a.accountId, keyId }, owner);
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
    },
  );

  it('left account B exactly as it was, and its key still works', async () => {
    const keys = await gw.http.get(`/v1/admin/accounts/${b.accountId}/keys`).set(gw.admin());
    expect(keys.body.data).toEqual([expect.objectContaining({ id: b.keyId, name: 'b key', status: 'ACTIVE', blocked: false, rpm: null })]);
    expect((await gw.http.get(`/v1/admin/accounts/${b.accountId}/usage-key`).set(gw.admin())).body).toMatchObject({ exists: false });
    const accounts = await gw.http.get('/v1/admin/accounts').set('authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
    expect(accounts.body.data.map((account: { name: string }) => account.name)).not.toContain('Intruder Inc');
    const chat = await gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${b.key}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'still mine?' }] });
    expect(chat.status).toBe(200);
  });

  it('and the operator’s session reaches every account', async () => {
    const operator = await signIn(gw, TEST_ADMIN_TOKEN);
    for (const route of adminRoutes.filter((entry) => entry.method === 'GET')) {
      const response = await call(route, b, operator);
      expect(response.status, route.name).toBe(200);
    }
  });
});
