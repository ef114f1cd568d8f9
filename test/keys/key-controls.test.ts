import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/*
 * docs/operator-controls.md on the model routes: allow-lists, expiry, rotation, requests that
 * can never pass, last use.
 */
let gw: TestGateway;
let accountId = '';

beforeAll(async () => {
  gw = await startTestGateway({ keyRefreshIntervalMs: 100 });
  accountId = await gw.createAccount('Controlled');
});
afterAll(() => gw.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const createKey = (body: Record<string, unknown>, account = accountId) => gw.createKeyWith(account, { name: 'controlled', ...body });
const chat = (key: string, model = 'mock-chat', extra: Record<string, unknown> = {}) => gw.chat(key, { model, ...extra });
const embed = (key: string, model = 'mock-embed') =>
  gw.http.post('/v1/embeddings').set('authorization', `Bearer ${key}`).send({ model, input: 'hello' });
const models = (key?: string) => {
  const request = gw.http.get('/v1/models');
  return key === undefined ? request : request.set('authorization', `Bearer ${key}`);
};

const notAllowed = { type: 'permission_error', code: 'model_not_allowed', param: 'model', message: expect.any(String) };

describe('model allow-lists', () => {
  it('a key’s list: ids and prefix* patterns, on chat, embeddings and /v1/models', async () => {
    const { key } = await createKey({ models: ['mock-chat', 'mock-e*'] });
    expect((await chat(key)).status).toBe(200);
    expect((await embed(key)).status).toBe(200);
    const refused = await chat(key, 'mock-text');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: notAllowed });
    expect((await models(key)).body.data.map((model: { id: string }) => model.id)).toEqual(['mock-chat', 'mock-embed']);
    // Without a key, the whole catalogue.
    expect((await models()).body.data).toHaveLength(3);
    // An unknown model is still 404, whatever the list.
    expect((await chat(key, 'nope')).status).toBe(404);
  });

  it('the account’s list applies to every key of it, changed at once', async () => {
    const account = await gw.createAccount('Listed');
    const { key } = await createKey({}, account);
    expect((await embed(key)).status).toBe(200);
    const set = await gw.http
      .patch(`/v1/admin/accounts/${account}`)
      .set(gw.admin())
      .send({ models: ['mock-chat'] });
    expect(set.status).toBe(200);
    const refused = await embed(key);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: notAllowed });
    expect((await chat(key)).status).toBe(200);
    expect((await models(key)).body.data.map((model: { id: string }) => model.id)).toEqual(['mock-chat']);
    // null lifts it.
    await gw.http.patch(`/v1/admin/accounts/${account}`).set(gw.admin()).send({ models: null }).expect(200);
    expect((await embed(key)).status).toBe(200);
  });

  it('an empty list is refused when set; an unusable key on /v1/models is ignored (the route needs none)', async () => {
    const empty = await gw.http.post(`/v1/admin/accounts/${accountId}/keys`).set(gw.admin()).send({ name: 'none', models: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error.param).toBe('models');
    expect((await models('sk-notakey')).body.data).toHaveLength(3);
    const { id, key } = await createKey({ models: ['mock-chat'] });
    expect((await models(key)).body.data).toHaveLength(1);
    await gw.http.post(`/v1/admin/keys/${id}/revoke`).set(gw.admin()).expect(200);
    expect((await models(key)).body.data).toHaveLength(3);
  });
});

describe('expiry', () => {
  it('an expired key gets 401 key_expired; the report still lists it as ACTIVE', async () => {
    const past = await gw.http
      .post(`/v1/admin/accounts/${accountId}/keys`)
      .set(gw.admin())
      .send({ name: 'past', expires_at: '2020-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.error.param).toBe('expires_at');

    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const { id, key } = await createKey({ name: 'short-lived', expires_at: expiresAt });
    expect((await gw.http.get(`/v1/admin/keys/${id}`).set(gw.admin())).body.expires_at).toBe(expiresAt);
    expect((await chat(key)).status).toBe(200);
    await sleep(Date.parse(expiresAt) - Date.now() + 50);
    const refused = await chat(key);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ type: 'authentication_error', code: 'key_expired' });
    await gw.gateway.recorder?.flush();
    const report = await gw.http.get(`/v1/admin/accounts/${accountId}/usage`).set(gw.admin());
    const entry = report.body.keys.find((candidate: { name: string }) => candidate.name === 'short-lived');
    expect(entry).toMatchObject({ status: 'ACTIVE' });

    // Extended later: works again.
    const extended = await gw.http.patch(`/v1/admin/keys/${id}`).set(gw.admin()).send({ expires_at: null });
    expect(extended.body.expires_at).toBeNull();
    expect((await chat(key)).status).toBe(200);
  });
});

describe('rotation', () => {
  it('keeps id, name, limits and usage; the old secret works for the grace, then not, on two instances', async () => {
    const second = await startTestGateway({ databaseUrl: gw.databaseUrl, keyRefreshIntervalMs: 100 });
    try {
      const { id, key: oldKey } = await createKey({ name: 'rotating', rpm: 77 });
      expect((await chat(oldKey)).status).toBe(200);
      // The second instance knows the old secret before the rotation.
      expect(
        (
          await second.http
            .post('/v1/chat/completions')
            .set('authorization', `Bearer ${oldKey}`)
            .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'x' }] })
        ).status,
      ).toBe(200);

      const rotated = await gw.http.post(`/v1/admin/keys/${id}/rotate`).set(gw.admin()).send({ grace_seconds: 2 });
      expect(rotated.status).toBe(200);
      expect(rotated.body).toMatchObject({ id, name: 'rotating', rpm: 77, status: 'ACTIVE' });
      const newKey: string = rotated.body.key;
      expect(newKey).toMatch(/^sk-[0-9A-Za-z]{48}$/);
      expect(rotated.body.hint).toBe(`sk-...${newKey.slice(-4)}`);
      expect(Date.parse(rotated.body.previous_secret_expires_at)).toBeGreaterThan(Date.now());
      // Shown once: never in a read.
      expect(JSON.stringify((await gw.http.get(`/v1/admin/keys/${id}`).set(gw.admin())).body)).not.toContain(newKey);

      const onSecond = (key: string) =>
        second.http
          .post('/v1/chat/completions')
          .set('authorization', `Bearer ${key}`)
          .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'x' }] });
      await sleep(300);
      for (const call of [chat, onSecond]) {
        expect((await call(oldKey)).status).toBe(200);
        expect((await call(newKey)).status).toBe(200);
      }
      await sleep(Date.parse(rotated.body.previous_secret_expires_at) - Date.now() + 50);
      for (const call of [chat, onSecond]) {
        const refused = await call(oldKey);
        expect(refused.status).toBe(401);
        expect(refused.body.error.code).toBe('invalid_api_key');
        expect((await call(newKey)).status).toBe(200);
      }

      // Rotating again with grace 0: the current secret stops at once, everywhere.
      const again = await second.http.post(`/v1/admin/keys/${id}/rotate`).set(second.admin()).send({ grace_seconds: 0 });
      expect(again.body.previous_secret_expires_at).toBeNull();
      expect((await onSecond(newKey)).status).toBe(401);
      await sleep(400);
      expect((await chat(newKey)).status).toBe(401);
      expect((await chat(again.body.key)).status).toBe(200);

      // One key, its usage in one row of the report.
      await gw.gateway.recorder?.flush();
      await second.gateway.recorder?.flush();
      const report = await gw.http.get(`/v1/admin/accounts/${accountId}/usage`).set(gw.admin());
      const rows = report.body.keys.filter((entry: { name: string }) => entry.name === 'rotating');
      expect(rows).toHaveLength(1);
      expect(rows[0].total.requests).toBeGreaterThanOrEqual(6);
    } finally {
      await second.close();
    }
  });

  it('a revoked key cannot be rotated; grace is 0 to a week', async () => {
    const { id } = await createKey({});
    expect((await gw.http.post(`/v1/admin/keys/${id}/rotate`).set(gw.admin()).send({ grace_seconds: -1 })).status).toBe(400);
    await gw.http.post(`/v1/admin/keys/${id}/revoke`).set(gw.admin()).expect(200);
    const refused = await gw.http.post(`/v1/admin/keys/${id}/rotate`).set(gw.admin()).send({ grace_seconds: 0 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('key_revoked');
  });
});

describe('requests that can never pass', () => {
  it('the openai SDK gets one 400 for a max_tokens above the key’s tpm, and does not retry', async () => {
    const { key } = await createKey({ tpm: 1000 });
    let attempts = 0;
    const client = new OpenAI({
      apiKey: key,
      baseURL: `${gw.baseUrl}/v1`,
      maxRetries: 2,
      fetch: (input, init) => {
        attempts += 1;
        return fetch(input, init);
      },
    });
    const error = await client.chat.completions
      .create({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5000 })
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'max_tokens', code: 'request_too_large' });
    expect(attempts).toBe(1);
    // It fits with a smaller max_tokens.
    expect((await chat(key, 'mock-chat', { max_tokens: 100 })).status).toBe(200);
    const completionField = await chat(key, 'mock-chat', { max_tokens: undefined, max_completion_tokens: 5000 });
    expect(completionField.body.error.param).toBe('max_completion_tokens');
  });

  it('a prompt alone above the tpm names messages', async () => {
    const { key } = await createKey({ tpm: 200 });
    const response = await chat(key, 'mock-chat', { messages: [{ role: 'user', content: 'word '.repeat(500) }], max_tokens: 1 });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large', param: 'messages' });
  });
});

describe('last used', () => {
  it('is written with the usage batch, not per request', async () => {
    const { id, key } = await createKey({});
    expect((await gw.http.get(`/v1/admin/keys/${id}`).set(gw.admin())).body.last_used_at).toBeNull();
    const before = Date.now();
    expect((await chat(key)).status).toBe(200);
    await gw.gateway.recorder?.flush();
    const lastUsed = (await gw.http.get(`/v1/admin/keys/${id}`).set(gw.admin())).body.last_used_at;
    expect(Date.parse(lastUsed)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(lastUsed)).toBeLessThanOrEqual(Date.now());
  });
});
