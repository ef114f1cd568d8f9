import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAsOwner, type TestSession } from '../dashboard/session-helpers';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/*
 * docs/operator-controls.md, "Who set a key's settings": what the operator set on a key, its
 * owner may tighten but not loosen or remove (403 operator_only); what the owner set stays the
 * owner's; the operator changes anything. Every setting, by each caller, on the admin API.
 * The account has no ceilings: the key's own settings are all that stands.
 */
let gw: TestGateway;
let owner: TestSession;
let accountId = '';

beforeAll(async () => {
  gw = await startTestGateway();
  accountId = await gw.createAccount('Without ceilings');
  owner = await signInAsOwner(gw, accountId);
});
afterAll(() => gw.close());

type Method = 'post' | 'patch';
const asOperator = (method: Method, path: string, body: object) => gw.http[method](path).set(gw.admin()).send(body);
const asOwner = (method: Method, path: string, body: object) =>
  gw.http[method](path).set('cookie', owner.cookie).set('x-csrf-token', owner.csrf).send(body);
const callers = { operator: asOperator, owner: asOwner };

const inDays = (days: number) => new Date(Date.UTC(2099, 0, 1) + days * 86_400_000).toISOString();

/** Per setting: the value the key is created with, a tighter one, looser ones, and the key object's name for it. */
const SETTINGS = [
  { field: 'rpm', initial: 100, tighter: 50, looser: [100_000_000, null] },
  { field: 'tpm', initial: 1000, tighter: 999, looser: [1_000_000_000, null] },
  { field: 'models', initial: ['mock-chat', 'mock-e*'], tighter: ['mock-embed'], looser: [['mock-chat', 'mock-text'], ['mock-*'], null] },
  { field: 'expires_at', initial: inDays(10), tighter: inDays(5), looser: [inDays(11), null] },
  {
    field: 'budget',
    initial: { amount_usd: 0.5, period: 'day', alert_at: [] },
    tighter: { amount_usd: 0.25, period: 'day', alert_at: [0.8] },
    looser: [{ amount_usd: 50, period: 'day' }, { amount_usd: 0.5, period: 'week' }, { amount_usd: 0.1, period: 'month' }, null],
  },
] as const;

/** How the API answers a value: the ISO time normalized to milliseconds, a budget with its alerts. */
function shown(field: string, value: unknown): unknown {
  if (field === 'expires_at' && typeof value === 'string') return new Date(value).toISOString();
  if (field === 'budget' && value !== null && typeof value === 'object') return { alert_at: [], ...value };
  return value;
}

async function keyBy(creator: keyof typeof callers, body: object): Promise<{ id: string }> {
  const created = await callers[creator]('post', `/v1/admin/accounts/${accountId}/keys`, { name: `by ${creator}`, ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

describe.each(SETTINGS)('$field', ({ field, initial, tighter, looser }) => {
  it('set by the operator: the owner may tighten it, not loosen or remove it (403 operator_only)', async () => {
    const key = await keyBy('operator', { [field]: initial });
    expect((await gw.http.get(`/v1/admin/keys/${key.id}`).set(gw.admin())).body.set_by).toMatchObject({ [field]: 'operator' });
    for (const value of looser) {
      const refused = await asOwner('patch', `/v1/admin/keys/${key.id}`, { [field]: value });
      expect(refused.status, JSON.stringify(value)).toBe(403);
      expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'operator_only', param: field });
      expect(refused.body.error.message).toMatch(/set by the operator/);
    }
    // Refusals change nothing.
    const unchanged = await gw.http.get(`/v1/admin/keys/${key.id}`).set(gw.admin());
    expect(unchanged.body[field]).toEqual(shown(field, initial));

    // The same value is no loosening; a tighter one is taken, and stays the operator's.
    expect((await asOwner('patch', `/v1/admin/keys/${key.id}`, { [field]: initial })).status).toBe(200);
    const tightened = await asOwner('patch', `/v1/admin/keys/${key.id}`, { [field]: tighter });
    expect(tightened.status, JSON.stringify(tightened.body)).toBe(200);
    expect(tightened.body[field]).toEqual(shown(field, tighter));
    expect(tightened.body.set_by[field]).toBe('operator');
    // Back to the operator's value is loosening now: the operator's setting is the tighter one.
    expect((await asOwner('patch', `/v1/admin/keys/${key.id}`, { [field]: initial })).status).toBe(403);

    // The operator loosens and removes it.
    const loosened = await asOperator('patch', `/v1/admin/keys/${key.id}`, { [field]: looser[0] });
    expect(loosened.status).toBe(200);
    expect(loosened.body.set_by[field]).toBe('operator');
    const removed = await asOperator('patch', `/v1/admin/keys/${key.id}`, { [field]: null });
    expect(removed.body).toMatchObject({ [field]: null, set_by: { [field]: null } });
    // Unset, it is the owner's to set and change.
    const ownersNow = await asOwner('patch', `/v1/admin/keys/${key.id}`, { [field]: initial });
    expect(ownersNow.body.set_by[field]).toBe('owner');
    expect((await asOwner('patch', `/v1/admin/keys/${key.id}`, { [field]: looser[0] })).status).toBe(200);
  });

  it('set by the owner: the owner loosens and removes it; an operator’s change makes it the operator’s', async () => {
    const key = await keyBy('owner', { [field]: initial });
    expect((await gw.http.get(`/v1/admin/keys/${key.id}`).set(gw.admin())).body.set_by).toMatchObject({ [field]: 'owner' });
    for (const value of looser) {
      const loosened = await asOwner('patch', `/v1/admin/keys/${key.id}`, { [field]: value });
      expect(loosened.status, JSON.stringify(loosened.body)).toBe(200);
      expect(loosened.body[field]).toEqual(shown(field, value));
      expect(loosened.body.set_by[field]).toBe(value === null ? null : 'owner');
    }
    const operators = await asOperator('patch', `/v1/admin/keys/${key.id}`, { [field]: initial });
    expect(operators.body.set_by[field]).toBe('operator');
    expect((await asOwner('patch', `/v1/admin/keys/${key.id}`, { [field]: looser[0] })).status).toBe(403);
  });
});

describe('the other settings and the rest of the key', () => {
  it('an operator-set setting binds only itself; the name and block stay the owner’s to change', async () => {
    const key = await keyBy('operator', { rpm: 100 });
    const changed = await asOwner('patch', `/v1/admin/keys/${key.id}`, { name: 'renamed', tpm: 5000, models: ['mock-chat'] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      name: 'renamed',
      rpm: 100,
      set_by: { rpm: 'operator', tpm: 'owner', models: 'owner', expires_at: null, budget: null },
    });
    // One loosening refuses the whole change.
    const mixed = await asOwner('patch', `/v1/admin/keys/${key.id}`, { tpm: 10, rpm: 101 });
    expect(mixed.status).toBe(403);
    expect(mixed.body.error.param).toBe('rpm');
    expect((await gw.http.get(`/v1/admin/keys/${key.id}`).set(gw.admin())).body).toMatchObject({ rpm: 100, tpm: 5000 });
  });

  it('the refused raise of the issue: 0.5 USD a day to 50, and rpm/tpm to the schema’s maximum', async () => {
    const budgeted = await keyBy('operator', { budget: { amount_usd: 0.5, period: 'day' } });
    for (const budget of [{ amount_usd: 50, period: 'day' }, null]) {
      const refused = await asOwner('patch', `/v1/admin/keys/${budgeted.id}`, { budget });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'operator_only', param: 'budget' });
    }
    const limited = await keyBy('operator', { rpm: 100, tpm: 1000 });
    const raised = await asOwner('patch', `/v1/admin/keys/${limited.id}`, { rpm: 100_000_000, tpm: 1_000_000_000 });
    expect(raised.status).toBe(403);
    expect(raised.body.error).toMatchObject({ type: 'permission_error', code: 'operator_only', param: 'rpm' });
  });

  it('the audit log names who changed a setting; the key names whose it is', async () => {
    const key = await keyBy('operator', { rpm: 100 });
    await asOwner('patch', `/v1/admin/keys/${key.id}`, { rpm: 60 }).expect(200);
    const audit = await gw.http.get(`/v1/admin/audit?account_id=${accountId}&limit=1`).set(gw.admin());
    expect(audit.body.data[0]).toMatchObject({
      actor: 'owner',
      action: 'key.update',
      target_id: key.id,
      before: { rpm: 100, set_by: { rpm: 'operator' } },
      after: { rpm: 60, set_by: { rpm: 'operator' } },
    });
  });
});
