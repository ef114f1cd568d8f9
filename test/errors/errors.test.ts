import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/** docs/errors.md: every error row, each in the envelope, on every kind of route. */
let gw: TestGateway;
let accountId: string;
let key: string;

const chat = (body: unknown) =>
  gw.http
    .post('/v1/chat/completions')
    .set('authorization', `Bearer ${key}`)
    .send(body as object);
/** A chat request whose body is `text` as it is, sent as `contentType`. */
const rawChat = (contentType: string, text: string) =>
  gw.http.post('/v1/chat/completions').set('authorization', `Bearer ${key}`).set('content-type', contentType).send(text);
const hello = { model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] };

function expectEnvelope(body: unknown, expected: { type: string; code: string; param?: string | null }): void {
  expect(body).toEqual({
    error: {
      message: expect.any(String),
      type: expected.type,
      code: expected.code,
      param: expected.param === undefined ? null : expected.param,
    },
  });
}

beforeAll(async () => {
  gw = await startTestGateway({ configYaml: undefined });
  accountId = await gw.createAccount();
  key = (await gw.createKey(accountId)).key;
});
afterAll(() => gw.close());

describe('400 invalid_request_error', () => {
  it('invalid_json for a malformed body', async () => {
    const response = await rawChat('application/json', '{"model": "mock-chat", "messages": [');
    expect(response.status).toBe(400);
    expectEnvelope(response.body, { type: 'invalid_request_error', code: 'invalid_json' });
  });

  it('missing_field names the field', async () => {
    const response = await chat({ model: 'mock-chat' });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, { type: 'invalid_request_error', code: 'missing_field', param: 'messages' });
  });

  it('invalid_value names the nested field path', async () => {
    const response = await chat({
      model: 'mock-chat',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'robot', content: 'b' },
      ],
    });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, { type: 'invalid_request_error', code: 'invalid_value', param: 'messages[1].role' });
  });

  it.each([
    ['temperature', 2.5],
    ['temperature', -0.1],
    ['top_p', 1.5],
    ['presence_penalty', 2.01],
    ['frequency_penalty', -3],
    ['max_tokens', 0],
    ['max_tokens', 1.5],
    ['stream', 'yes'],
  ])('%s = %s is refused with param', async (field, value) => {
    const response = await chat({ ...hello, [field]: value });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, { type: 'invalid_request_error', code: 'invalid_value', param: field });
  });

  it('accepts the limits themselves', async () => {
    const response = await chat({
      ...hello,
      temperature: 2,
      top_p: 0,
      presence_penalty: -2,
      frequency_penalty: 2,
      stop: ['a', 'b', 'c', 'd'],
    });
    expect(response.status).toBe(200);
  });

  it('too_many_stop_sequences for five stops', async () => {
    const response = await chat({ ...hello, stop: ['a', 'b', 'c', 'd', 'e'] });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, { type: 'invalid_request_error', code: 'too_many_stop_sequences', param: 'stop' });
  });

  it('empty messages are refused', async () => {
    const response = await chat({ model: 'mock-chat', messages: [] });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('messages');
  });

  it('a body that is not an object is refused', async () => {
    const response = await chat([1, 2, 3]);
    expect(response.status).toBe(400);
    expect(response.body.error.type).toBe('invalid_request_error');
  });

  it('unsupported_capability names the field', async () => {
    const response = await chat({
      model: 'mock-text',
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'json_object' },
    });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, { type: 'invalid_request_error', code: 'unsupported_capability', param: 'response_format' });
  });

  it('n other than 1 on a provider that cannot honour it', async () => {
    const response = await chat({ ...hello, n: 2 });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('n');
  });
});

describe('401 authentication_error', () => {
  it('missing_api_key without a header', async () => {
    const response = await gw.http.post('/v1/chat/completions').send(hello);
    expect(response.status).toBe(401);
    expectEnvelope(response.body, { type: 'authentication_error', code: 'missing_api_key' });
  });

  it('invalid_api_key for an unknown key and for garbage', async () => {
    for (const token of [`sk-${'a'.repeat(48)}`, 'nonsense', `sk-${'b'.repeat(10)}`]) {
      const response = await gw.http.post('/v1/chat/completions').set('authorization', `Bearer ${token}`).send(hello);
      expect(response.status).toBe(401);
      expectEnvelope(response.body, { type: 'authentication_error', code: 'invalid_api_key' });
    }
  });

  it('a uk- key is refused on model routes, an sk- key on the usage route', async () => {
    const usageKey = await gw.createUsageKey(accountId);
    for (const path of ['/v1/chat/completions', '/v1/embeddings']) {
      const response = await gw.http.post(path).set('authorization', `Bearer ${usageKey}`).send(hello);
      expect(response.status).toBe(401);
      expectEnvelope(response.body, { type: 'authentication_error', code: 'invalid_api_key' });
    }
    const usage = await gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${key}`);
    expect(usage.status).toBe(401);
    expectEnvelope(usage.body, { type: 'authentication_error', code: 'invalid_api_key' });
    const ok = await gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${usageKey}`);
    expect(ok.status).toBe(200);
  });

  it('authentication comes before validation: no key and a bad body is 401', async () => {
    const response = await gw.http.post('/v1/chat/completions').send({ nonsense: true });
    expect(response.status).toBe(401);
  });
});

describe('403, 404, 405, 413, 415', () => {
  it('blocked key -> 403 key_blocked; unblocked works again; revoked -> 401', async () => {
    const created = await gw.createKey(accountId, { name: 'to block' });
    const call = () => gw.http.post('/v1/chat/completions').set('authorization', `Bearer ${created.key}`).send(hello);
    expect((await call()).status).toBe(200);
    await gw.http.post(`/v1/admin/keys/${created.id}/block`).set(gw.admin()).expect(200);
    const blocked = await call();
    expect(blocked.status).toBe(403);
    expectEnvelope(blocked.body, { type: 'permission_error', code: 'key_blocked' });
    await gw.http.post(`/v1/admin/keys/${created.id}/unblock`).set(gw.admin()).expect(200);
    expect((await call()).status).toBe(200);
    await gw.http.post(`/v1/admin/keys/${created.id}/revoke`).set(gw.admin()).expect(200);
    const revoked = await call();
    expect(revoked.status).toBe(401);
    expectEnvelope(revoked.body, { type: 'authentication_error', code: 'invalid_api_key' });
  });

  it('unknown model -> 404 model_not_found with param model', async () => {
    const response = await chat({ ...hello, model: 'no-such-model' });
    expect(response.status).toBe(404);
    expectEnvelope(response.body, { type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
  });

  it('unknown path -> 404 route_not_found, never HTML', async () => {
    for (const path of ['/', '/v1', '/v2/chat/completions', '/v1/chat/completions/extra', '/%zz']) {
      const response = await gw.http.get(path);
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toMatch(/application\/json/);
      expectEnvelope(response.body, { type: 'invalid_request_error', code: 'route_not_found' });
    }
  });

  it('known path, wrong method -> 405 with Allow', async () => {
    const response = await gw.http.get('/v1/chat/completions').set('authorization', `Bearer ${key}`);
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expectEnvelope(response.body, { type: 'invalid_request_error', code: 'method_not_allowed' });
    const put = await gw.http.put('/v1/models');
    expect(put.status).toBe(405);
  });

  it('body over the limit -> 413 payload_too_large', async () => {
    const small = await startTestGateway({ configYaml: `server: { body_limit_bytes: 1024 }\n${baseProvidersOnly()}` });
    try {
      const response = await small.http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
      expect(response.status).toBe(413);
      expectEnvelope(response.body, { type: 'invalid_request_error', code: 'payload_too_large' });
    } finally {
      await small.close();
    }
  });

  it('a body that is not JSON -> 415 unsupported_media_type', async () => {
    const response = await rawChat('text/plain', 'hello');
    expect(response.status).toBe(415);
    expectEnvelope(response.body, { type: 'invalid_request_error', code: 'unsupported_media_type' });
  });
});

describe('x-request-id', () => {
  it('is on every response, echoed when the client sent a sane one', async () => {
    const echoed = await gw.http.get('/v1/models').set('x-request-id', 'my-trace-123');
    expect(echoed.headers['x-request-id']).toBe('my-trace-123');
    const generated = await gw.http.get('/nowhere');
    expect(generated.headers['x-request-id']).toMatch(/^\w{16,}$/);
    const injected = await gw.http.get('/v1/models').set('x-request-id', 'bad id\twith spaces');
    expect(injected.headers['x-request-id']).not.toContain(' ');
    const failed = await chat({ model: 'mock-chat' });
    expect(failed.headers['x-request-id']).toBeTruthy();
  });
});

function baseProvidersOnly(): string {
  return `providers:
  mock: { type: mock }
models:
  - id: mock-chat
    provider: mock
    capabilities: [chat]
    context_window: 1000
    pricing: { input_per_million: 1, output_per_million: 1 }
`;
}
