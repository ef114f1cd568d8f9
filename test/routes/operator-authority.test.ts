import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAsOwner, type TestSession } from '../dashboard/session-helpers';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/*
 * docs/operator-controls.md, two levels of authority: the operator (admin token) sets an
 * account's ceilings; its owner (dashboard session) manages keys within them. Every admin
 * route that changes something, called by each of the two.
 */
let gw: TestGateway;
let owner: TestSession;
let accountId = '';

beforeAll(async () => {
  gw = await startTestGateway();
  accountId = await gw.createAccount('Ceilinged');
  owner = await signInAsOwner(gw, accountId);
});
afterAll(() => gw.close());

type Method = 'get' | 'post' | 'patch';
const asOperator = (method: Method, path: string, body?: object) => {
  const request = gw.http[method](path).set(gw.admin());
  return body === undefined ? request : request.send(body);
};
const asOwner = (method: Method, path: string, body?: object) => {
  const request = gw.http[method](path).set('cookie', owner.cookie).set('x-csrf-token', owner.csrf);
  return body === undefined ? request : request.send(body);
};
const callers = [
  ['operator', asOperator],
  ['owner', asOwner],
] as const;

const chat = (key: string, model = 'mock-chat') => gw.chat(key, { model });

describe('account ceilings', () => {
  it('only the operator sets them; the owner gets 403 operator_only', async () => {
    const refused = await asOwner('patch', `/v1/admin/accounts/${accountId}`, { rpm: 1_000_000 });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'operator_only' });

    const set = await asOperator('patch', `/v1/admin/accounts/${accountId}`, { rpm: 100, tpm: 10_000, models: ['mock-chat', 'mock-e*'] });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: accountId, rpm: 100, tpm: 10_000, models: ['mock-chat', 'mock-e*'] });
    // The owner sees them.
    expect((await asOwner('get', `/v1/admin/accounts/${accountId}`)).body).toMatchObject({ rpm: 100, tpm: 10_000 });
  });

  it('refuses an empty model list and ids outside the catalogue (400 naming models)', async () => {
    for (const models of [[], ['no-such-model']]) {
      const response = await asOperator('patch', `/v1/admin/accounts/${accountId}`, { models });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param: 'models' });
    }
  });

  it.each(callers)('a key above them is 400 invalid_value naming the field (%s)', async (_who, as) => {
    for (const [field, value] of [
      ['rpm', 100_000_000],
      ['tpm', 1_000_000_000],
    ] as const) {
      const created = await as('post', `/v1/admin/accounts/${accountId}/keys`, { name: 'greedy', [field]: value });
      expect(created.status).toBe(400);
      expect(created.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param: field });
    }
    const key = await as('post', `/v1/admin/accounts/${accountId}/keys`, { name: 'modest', rpm: 100, tpm: 10_000 });
    expect(key.status).toBe(201);
    const raised = await as('patch', `/v1/admin/keys/${key.body.id}`, { rpm: 101 });
    expect(raised.status).toBe(400);
    expect(raised.body.error).toMatchObject({ code: 'invalid_value', param: 'rpm' });
    const outside = await as('patch', `/v1/admin/keys/${key.body.id}`, { models: ['mock-text'] });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toMatchObject({ code: 'invalid_value', param: 'models' });
    const within = await as('patch', `/v1/admin/keys/${key.body.id}`, { rpm: 50, models: ['mock-embed'] });
    expect(within.status).toBe(200);
    expect(within.body).toMatchObject({ rpm: 50, models: ['mock-embed'] });
  });

  it('hold a key without its own limit to the ceiling on the request path', async () => {
    const { key } = await gw.createKey(accountId, { name: 'defaulted' });
    const response = await chat(key);
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-limit-requests']).toBe('100');
    expect(response.headers['x-ratelimit-limit-tokens']).toBe('10000');
  });
});

describe('blocking', () => {
  it('the owner cannot lift the operator’s block (403), and the key shows who blocked it', async () => {
    const { id, key } = await gw.createKey(accountId, { name: 'blocked by operator' });
    const blocked = await asOperator('post', `/v1/admin/keys/${id}/block`);
    expect(blocked.body).toMatchObject({ blocked: true, blocked_by: 'operator' });
    // Blocking again as the owner keeps it the operator's block.
    expect((await asOwner('post', `/v1/admin/keys/${id}/block`)).body).toMatchObject({ blocked: true, blocked_by: 'operator' });
    const lifted = await asOwner('post', `/v1/admin/keys/${id}/unblock`);
    expect(lifted.status).toBe(403);
    expect(lifted.body.error).toMatchObject({ type: 'permission_error', code: 'blocked_by_operator' });
    expect((await chat(key)).status).toBe(403);
    const unblocked = await asOperator('post', `/v1/admin/keys/${id}/unblock`);
    expect(unblocked.body).toMatchObject({ blocked: false, blocked_by: null });
    expect((await chat(key)).status).toBe(200);
  });

  it('the owner lifts its own block; the operator lifts any', async () => {
    const { id } = await gw.createKey(accountId, { name: 'blocked by owner' });
    expect((await asOwner('post', `/v1/admin/keys/${id}/block`)).body).toMatchObject({ blocked: true, blocked_by: 'owner' });
    expect((await asOwner('post', `/v1/admin/keys/${id}/unblock`)).body).toMatchObject({ blocked: false, blocked_by: null });
    await asOwner('post', `/v1/admin/keys/${id}/block`);
    // The operator blocking an owner-blocked key makes it the operator's block.
    expect((await asOperator('post', `/v1/admin/keys/${id}/block`)).body).toMatchObject({ blocked_by: 'operator' });
    expect((await asOperator('post', `/v1/admin/keys/${id}/unblock`)).body).toMatchObject({ blocked: false });
  });
});

describe('the other key routes, by each caller', () => {
  it.each(callers)('create, rename, revoke, rotate and list work within the rules (%s)', async (_who, as) => {
    const created = await as('post', `/v1/admin/accounts/${accountId}/keys`, { name: 'plain' });
    expect(created.status).toBe(201);
    expect((await as('patch', `/v1/admin/keys/${created.body.id}`, { name: 'renamed' })).body).toMatchObject({ name: 'renamed' });
    const rotated = await as('post', `/v1/admin/keys/${created.body.id}/rotate`, { grace_seconds: 0 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).not.toBe(created.body.key);
    expect((await as('post', `/v1/admin/keys/${created.body.id}/revoke`)).body).toMatchObject({ status: 'REVOKED' });
    expect((await as('get', `/v1/admin/accounts/${accountId}/keys`)).status).toBe(200);
    expect((await as('get', `/v1/admin/accounts/${accountId}/usage-key`)).status).toBe(200);
    expect((await as('post', `/v1/admin/accounts/${accountId}/usage-key`)).status).toBe(201);
  });

  it('the operator alone creates accounts and login links', async () => {
    expect((await asOwner('post', '/v1/admin/accounts', { name: 'x' })).status).toBe(403);
    expect((await asOwner('post', `/v1/admin/accounts/${accountId}/login-link`)).status).toBe(403);
    expect((await asOperator('post', '/v1/admin/accounts', { name: 'x' })).status).toBe(201);
  });
});

describe('the audit log', () => {
  it('records who changed what, with before/after and the request id, newest first and paged', async () => {
    const { id } = await gw.createKey(accountId, { name: 'audited' });
    const blocked = await asOwner('post', `/v1/admin/keys/${id}/block`);
    const requestId = blocked.headers['x-request-id'];
    const page = await asOperator('get', `/v1/admin/audit?account_id=${accountId}&limit=2`);
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.data[0]).toMatchObject({
      actor: 'owner',
      account_id: accountId,
      action: 'key.block',
      target_id: id,
      before: expect.objectContaining({ blocked: false }),
      after: expect.objectContaining({ blocked: true, blocked_by: 'owner' }),
      request_id: requestId,
    });
    expect(page.body.data[1]).toMatchObject({ actor: 'operator', action: 'key.create', target_id: id, before: null });
    expect(JSON.stringify(page.body)).not.toMatch(/sk-[0-9A-Za-z]{48}/);
    const next = await asOperator('get', `/v1/admin/audit?account_id=${accountId}&limit=2&cursor=${page.body.next_cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.data.map((entry: { id: string }) => entry.id)).not.toContain(page.body.data[0].id);
    expect((await asOperator('get', '/v1/admin/audit?cursor=garbage')).status).toBe(400);
  });

  it('an owner sees its own account’s entries only, whatever it asks for', async () => {
    const other = await gw.createAccount('Other');
    await gw.createKey(other, { name: 'elsewhere' });
    const page = await asOwner('get', `/v1/admin/audit?account_id=${other}&limit=500`);
    expect(page.status).toBe(200);
    expect(page.body.data.length).toBeGreaterThan(0);
    for (const entry of page.body.data) expect(entry.account_id).toBe(accountId);
  });
});

// Last: its owner's sign-in replaces the shared agent's session cookie.
describe('spend budgets', () => {
  it('the account’s is the operator’s; an owner sets its keys’ within it, and the key’s is enforced', async () => {
    const account = await gw.createAccount('Budgeted account');
    const budgetOwner = await signInAsOwner(gw, account);
    const asBudgetOwner = (method: Method, path: string, body?: object) => {
      const request = gw.http[method](path).set('cookie', budgetOwner.cookie).set('x-csrf-token', budgetOwner.csrf);
      return body === undefined ? request : request.send(body);
    };
    const refused = await asBudgetOwner('patch', `/v1/admin/accounts/${account}`, { budget: { amount_usd: 100, period: 'day' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'operator_only' });
    await asOperator('patch', `/v1/admin/accounts/${account}`, { budget: { amount_usd: 1, period: 'month' } }).expect(200);

    const over = await asBudgetOwner('post', `/v1/admin/accounts/${account}/keys`, {
      name: 'greedy',
      budget: { amount_usd: 1.5, period: 'day' },
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'invalid_value', param: 'budget' });
    const key = await asBudgetOwner('post', `/v1/admin/accounts/${account}/keys`, {
      name: 'tiny',
      budget: { amount_usd: 0.000001, period: 'day' },
    });
    expect(key.status).toBe(201);
    expect(key.body.budget).toEqual({ amount_usd: 0.000001, period: 'day', alert_at: [] });
    // A chat's worst case is more than the key's whole budget.
    expect((await chat(key.body.key)).status).toBe(400);
    const raised = await asBudgetOwner('patch', `/v1/admin/keys/${key.body.id}`, { budget: { amount_usd: 1, period: 'day' } });
    expect(raised.status).toBe(200);
    expect((await chat(key.body.key)).status).toBe(200);
    const audit = await asOperator('get', `/v1/admin/audit?account_id=${account}`);
    expect(audit.body.data[0]).toMatchObject({ actor: 'owner', action: 'key.update', after: { budget: { amount_usd: 1, period: 'day' } } });
  });
});
