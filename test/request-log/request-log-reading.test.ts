import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../contract';
import { BASE_TEST_CONFIG, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { signInAsOwner, type TestSession } from '../dashboard/session-helpers';
import { detailOf, recordsOf } from './request-log-helpers';

/*
 * docs/request-log.md, "Reading it" and "Bodies": filters, pages, bad filters, an owner's
 * view confined to its account, and bodies kept only where the operator listed the key,
 * without a secret.
 */
let gw: TestGateway;
/** A second instance on the same database whose config keeps `a.key`'s bodies. */
let keeping: TestGateway;
let owner: TestSession;
const a = { accountId: '', keyId: '', key: '' };
const b = { accountId: '', keyId: '', key: '' };
/** An account whose bodies the second instance keeps whole. */
let keptAccountId = '';

beforeAll(async () => {
  gw = await startTestGateway();
  a.accountId = await gw.createAccount('Account A');
  ({ id: a.keyId, key: a.key } = await gw.createKey(a.accountId, { name: 'a key' }));
  b.accountId = await gw.createAccount('Account B');
  ({ id: b.keyId, key: b.key } = await gw.createKey(b.accountId, { name: 'b key' }));
  keptAccountId = await gw.createAccount('Kept');
  keeping = await startTestGateway({
    databaseUrl: gw.databaseUrl,
    configYaml: `${BASE_TEST_CONFIG}\nrequest_log:\n  bodies:\n    max_bytes: 400\n    keys: [${a.keyId}]\n    accounts: [${keptAccountId}]\n`,
  });
  owner = await signInAsOwner(gw, a.accountId);
  for (let index = 0; index < 3; index += 1) expect((await gw.chat(a.key)).status).toBe(200);
  expect((await gw.chat(b.key, { model: 'mock-text' })).status).toBe(200);
  await recordsOf(gw, { account_id: a.accountId }, 3);
  await recordsOf(gw, { account_id: b.accountId }, 1);
});
afterAll(async () => {
  await keeping?.close();
  await gw?.close();
});

const asOwner = (path: string) => gw.http.get(path).set('cookie', owner.cookie);

describe('GET /v1/admin/requests', () => {
  it('pages newest first with a cursor, and filters by model', async () => {
    const first = await gw.http.get('/v1/admin/requests').query({ account_id: a.accountId, limit: 2 }).set(gw.admin()).expect(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await gw.http
      .get('/v1/admin/requests')
      .query({ account_id: a.accountId, limit: 2, cursor: first.body.next_cursor })
      .set(gw.admin())
      .expect(200);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    const all = [...first.body.data, ...second.body.data] as RequestRecord[];
    expect(new Set(all.map((record) => record.id)).size).toBe(3);
    const times = all.map((record) => record.received_at);
    expect([...times].sort().reverse()).toEqual(times);
    const text = await recordsOf(gw, { model: 'mock-text' });
    expect(text.map((record) => record.key_id)).toEqual([b.keyId]);
  });

  it.each([
    ['an unknown model format', { model: 'not a model!' }, 'model'],
    ['an end before the start', { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' }, 'to'],
    ['a cursor that was not ours', { cursor: 'bm90LW91cnM' }, 'cursor'],
    ['a status out of range', { status: '700' }, 'status'],
    ['a time that is not one', { from: 'yesterday' }, 'from'],
  ])('%s is a 400 in the error envelope', async (_name, query, param) => {
    const response = await gw.http.get('/v1/admin/requests').query(query).set(gw.admin());
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
  });
});

describe('an account owner', () => {
  it('sees only its own account’s records, whatever it asks for', async () => {
    const response = await asOwner(`/v1/admin/requests?account_id=${b.accountId}`).expect(200);
    const records = response.body.data as RequestRecord[];
    expect(records.length).toBeGreaterThanOrEqual(3);
    expect(new Set(records.map((record) => record.account_id))).toEqual(new Set([a.accountId]));
  });

  it('gets 404 for another account’s record, as for one that does not exist', async () => {
    const [theirs] = await recordsOf(gw, { account_id: b.accountId });
    const other = await asOwner(`/v1/admin/requests/${theirs?.id ?? ''}`);
    const missing = await asOwner('/v1/admin/requests/no-such-record');
    expect(other.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(other.body.error.code).toBe(missing.body.error.code);
    const [mine] = await recordsOf(gw, { account_id: a.accountId });
    expect((await asOwner(`/v1/admin/requests/${mine?.id ?? ''}`)).status).toBe(200);
  });
});

describe('bodies', () => {
  it('are kept for the listed key only, secrets redacted, cut to the cap', async () => {
    const secret = `sk-${'s3cr3t'.repeat(6)}`;
    const response = await keeping.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${a.key}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: `my key is ${secret}` }], max_tokens: 5, user: 'x'.repeat(600) });
    expect(response.status).toBe(200);
    const record = (await recordsOf(keeping, { key_id: a.keyId, model: 'mock-chat' }, 4)).find(
      (entry) => entry.request_id === response.headers['x-request-id'],
    );
    const detail = await detailOf(keeping, record?.id ?? '');
    expect(detail.bodies_kept).toBe(true);
    expect(detail.request_body).toContain('[redacted]');
    expect(Buffer.byteLength(detail.request_body ?? '')).toBeLessThanOrEqual(400);
    expect(detail.response_body).toContain('chat.completion');
    const stored = JSON.stringify(detail);
    expect(stored).not.toContain('s3cr3t');
    expect(stored).not.toContain(a.key);
    // Another key's requests on the same instance: no bodies.
    expect((await keeping.chat(b.key)).status).toBe(200);
    const [other] = await recordsOf(keeping, { key_id: b.keyId }, 2);
    expect((await detailOf(keeping, other?.id ?? '')).request_body).toBeNull();
  });

  it('kept for a whole account show on its lists', async () => {
    const list = (query: Record<string, string>) => keeping.http.get('/v1/admin/requests').query(query).set(keeping.admin()).expect(200);
    expect((await list({ account_id: keptAccountId })).body.account_bodies_kept).toBe(true);
    expect((await list({ account_id: a.accountId })).body.account_bodies_kept).toBe(false);
    expect((await list({})).body.account_bodies_kept).toBeNull();
  });

  it('of a stream are its events as sent', async () => {
    const response = await keeping.chat(a.key, { stream: true });
    expect(response.status).toBe(200);
    const records = await recordsOf(keeping, { key_id: a.keyId }, 5);
    const record = records.find((entry) => entry.request_id === response.headers['x-request-id']);
    const detail = await detailOf(keeping, record?.id ?? '');
    expect(detail.response_body?.startsWith('data: {')).toBe(true);
  });
});
