import { describe, expect, it } from 'vitest';
import { signInAsOwner } from '../dashboard/session-helpers';
import { useCliGateway } from './cli-harness';

/*
 * docs/operator-controls.md, "Who set a key's settings", from the CLI: the CLI is the operator,
 * so what it sets on a key the account's owner (a dashboard session on the admin API) may
 * tighten but not loosen, and it loosens anything. Every setting.
 */
const harness = useCliGateway();
const { cli, json } = harness;

interface KeyView {
  id: string;
  rpm: number | null;
  set_by: Record<string, string | null>;
}

const ALL_OPERATOR = { rpm: 'operator', tpm: 'operator', models: 'operator', expires_at: 'operator', budget: 'operator' };
const NOBODY = { rpm: null, tpm: null, models: null, expires_at: null, budget: null };

/** Per setting: a loosening and a tightening of what the CLI sets below. */
const CHANGES = [
  ['rpm', 101, 99],
  ['tpm', null, 999],
  ['models', ['mock-*'], ['mock-chat']],
  ['expires_at', '2099-01-11T00:00:00Z', '2099-01-09T00:00:00Z'],
  ['budget', { amount_usd: 0.5, period: 'week' }, { amount_usd: 0.4, period: 'day' }],
] as const;

describe('model-gateway CLI, what the operator set on a key', { timeout: 120_000 }, () => {
  it('binds the owner, and only the CLI loosens it', async () => {
    const { gw } = harness;
    const account = await json<{ id: string }>('accounts', 'create', '--name', 'Authority by CLI');
    const owner = await signInAsOwner(gw, account.id);
    const asOwner = (keyId: string, body: object) =>
      gw.http.patch(`/v1/admin/keys/${keyId}`).set('cookie', owner.cookie).set('x-csrf-token', owner.csrf).send(body);

    const created = await json<KeyView>(
      'keys',
      'create',
      '--account',
      account.id,
      '--name',
      'bound',
      '--rpm',
      '100',
      '--tpm',
      '1000',
      '--models',
      'mock-chat,mock-e*',
      '--expires-at',
      '2099-01-10T00:00:00Z',
      '--budget-usd',
      '0.5',
      '--budget-period',
      'day',
    );
    expect(created.set_by).toEqual(ALL_OPERATOR);

    for (const [field, looser, tighter] of CHANGES) {
      const refused = await asOwner(created.id, { [field]: looser });
      expect(refused.status, field).toBe(403);
      expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'operator_only', param: field });
      const tightened = await asOwner(created.id, { [field]: tighter });
      expect(tightened.status, field).toBe(200);
      expect(tightened.body.set_by[field]).toBe('operator');
    }

    // The CLI loosens each past what the owner could, and clears each.
    const loosened = await json<KeyView>(
      'keys',
      'limits',
      created.id,
      '--rpm',
      '500',
      '--tpm',
      '5000',
      '--models',
      'mock-*',
      '--budget-usd',
      '5',
      '--budget-period',
      'week',
    );
    expect(loosened).toMatchObject({ rpm: 500, tpm: 5000, models: ['mock-*'], budget: { amount_usd: 5, period: 'week' } });
    const later = await json<KeyView>('keys', 'expiry', created.id, '--expires-at', '2099-06-01T00:00:00Z');
    expect(later).toMatchObject({ expires_at: '2099-06-01T00:00:00.000Z', set_by: ALL_OPERATOR });
    await json('keys', 'limits', created.id, '--rpm', '0', '--tpm', '0', '--models', 'all', '--no-budget');
    const cleared = await json<KeyView>('keys', 'expiry', created.id, '--expires-at', 'never');
    expect(cleared.set_by).toEqual(NOBODY);
    // Nobody's now: the owner's to set and loosen.
    expect((await asOwner(created.id, { rpm: 10 })).body.set_by.rpm).toBe('owner');
    expect((await asOwner(created.id, { rpm: 1000 })).status).toBe(200);

    // What the owner set is the owner's until the CLI sets it; `keys list` says whose each is.
    const ownersKey = await gw.http
      .post(`/v1/admin/accounts/${account.id}/keys`)
      .set('cookie', owner.cookie)
      .set('x-csrf-token', owner.csrf)
      .send({ name: 'owner’s', rpm: 50, tpm: 500 });
    expect(ownersKey.body.set_by).toMatchObject({ rpm: 'owner', tpm: 'owner' });
    await json('keys', 'limits', ownersKey.body.id, '--rpm', '40');
    const listed = await json<KeyView[]>('keys', 'list', '--account', account.id);
    expect(listed.find((key) => key.id === ownersKey.body.id)?.set_by).toEqual({ ...NOBODY, rpm: 'operator', tpm: 'owner' });
    expect((await asOwner(ownersKey.body.id, { tpm: 100_000 })).status).toBe(200);
    expect((await asOwner(ownersKey.body.id, { rpm: 41 })).status).toBe(403);

    // The CLI's own refusals are unchanged: it is the operator.
    expect((await cli('keys', 'limits', ownersKey.body.id, '--rpm', '1000000')).code).toBe(0);
  });
});
