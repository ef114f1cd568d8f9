import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageReport } from '../../contract';
import { slowChatConfig, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { recordOf } from './request-log-helpers';

/*
 * docs/request-log.md: one record per model request on every model route, streamed or not,
 * answered, refused, failed upstream or cut short by the client; its tokens and cost are the
 * usage event's, so they agree with the cost header and the usage report to the digit.
 */
let gw: TestGateway;
let accountId = '';

beforeAll(async () => {
  gw = await startTestGateway({ configYaml: slowChatConfig('{ latency_ms: 400, chunk_delay_ms: 100, chunks: 20 }') });
  accountId = await gw.createAccount('Logged');
});
afterAll(() => gw.close());

type Route = 'chat' | 'embeddings' | 'messages' | 'responses';

function send(route: Route, key: string, options: { stream?: boolean; content?: string; model?: string } = {}) {
  const stream = options.stream === true;
  const content = options.content ?? 'hello there';
  const model = options.model ?? (route === 'embeddings' ? 'mock-embed' : 'mock-chat');
  const post = (path: string) =>
    gw.http.post(path).set('authorization', `Bearer ${key}`).set('user-agent', 'log-test/1.0').set('x-session-id', 'session-7');
  switch (route) {
    case 'chat':
      return post('/v1/chat/completions').send({
        model,
        messages: [{ role: 'user', content }],
        max_tokens: 5,
        ...(stream ? { stream, stream_options: { include_usage: true } } : {}),
      });
    case 'embeddings':
      return post('/v1/embeddings').send({ model, input: content });
    case 'messages':
      return post('/v1/messages').send({ model, max_tokens: 5, messages: [{ role: 'user', content }], ...(stream ? { stream } : {}) });
    case 'responses':
      return post('/v1/responses').send({ model, input: content, max_output_tokens: 16, ...(stream ? { stream } : {}) });
  }
}

const PATHS: Record<Route, string> = {
  chat: '/v1/chat/completions',
  embeddings: '/v1/embeddings',
  messages: '/v1/messages',
  responses: '/v1/responses',
};

const CASES: Array<[Route, boolean]> = [
  ['chat', false],
  ['chat', true],
  ['embeddings', false],
  ['messages', false],
  ['messages', true],
  ['responses', false],
  ['responses', true],
];

/** The key's spend in the account's usage report (keys are named uniquely here). */
async function reportedSpend(keyName: string): Promise<number> {
  const response = await gw.http.get(`/v1/admin/accounts/${accountId}/usage`).set(gw.admin()).expect(200);
  const key = (response.body as UsageReport).keys.find((entry) => entry.name === keyName);
  return key?.total.spend_usd ?? -1;
}

describe('a record per request, on every model route', () => {
  it.each(CASES)('%s (stream: %s) answered: tokens, cost, timings, key and client', async (route, stream) => {
    const name = `${route}-${String(stream)}`;
    const key = await gw.createKey(accountId, { name });
    const response = await send(route, key.key, { stream });
    expect(response.status, response.text).toBe(200);
    const record = await recordOf(gw, { key_id: key.id });
    expect(record).toMatchObject({
      request_id: response.headers['x-request-id'],
      account_id: accountId,
      key_id: key.id,
      route: PATHS[route],
      requested_model: route === 'embeddings' ? 'mock-embed' : 'mock-chat',
      model: route === 'embeddings' ? 'mock-embed' : 'mock-chat',
      provider: 'mock',
      stream,
      status: 200,
      error_code: null,
      upstream_attempts: 1,
      user_agent: 'log-test/1.0',
      session_id: 'session-7',
      bodies_kept: false,
    });
    expect(record.tokens.prompt).toBeGreaterThan(0);
    if (route !== 'embeddings') expect(record.tokens.completion).toBeGreaterThan(0);
    expect(Number(record.cost_usd)).toBeGreaterThan(0);
    expect(record.first_byte_ms).not.toBeNull();
    expect(record.latency_ms).toBeGreaterThanOrEqual(record.first_byte_ms ?? 0);
    expect(record.client_ip).toMatch(/127\.0\.0\.1/);
    // The same digits as the cost header (non-streamed replies carry it) and the usage report.
    if (!stream) expect(response.headers['x-gateway-cost-usd']).toBe(record.cost_usd);
    expect(await reportedSpend(name)).toBe(Number(record.cost_usd));
  });

  it.each(CASES)('%s (stream: %s) failed upstream: the error, the attempts, nothing billed', async (route, stream) => {
    const key = await gw.createKey(accountId, { name: `${route}-${String(stream)}-failing` });
    const response = await send(route, key.key, { stream, content: 'mock:error:500' });
    expect(response.status).toBe(502);
    const record = await recordOf(gw, { key_id: key.id });
    expect(record).toMatchObject({ status: 502, error_code: 'upstream_unavailable', stream, model: expect.any(String) });
    // upstream.max_retries is 1 in the test config: the first call and one retry.
    expect(record.upstream_attempts).toBe(2);
    expect(record.cost_usd).toBe('0');
  });
});

describe('refused requests are recorded with their code', () => {
  it('no key: 401, no key or account', async () => {
    const response = await gw.http
      .post('/v1/chat/completions')
      .set('x-request-id', 'no-key-request-1')
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(401);
    const record = await recordOf(gw, { status: '401', error_code: 'missing_api_key' });
    expect(record).toMatchObject({ request_id: 'no-key-request-1', key_id: null, account_id: null, requested_model: 'mock-chat' });
    expect(record.upstream_attempts).toBe(0);
  });

  it('over the key’s rate limit: 429 rate_limit_exceeded', async () => {
    const key = await gw.createKey(accountId, { name: 'limited', rpm: 1 });
    expect((await send('chat', key.key)).status).toBe(200);
    expect((await send('messages', key.key)).status).toBe(429);
    const record = await recordOf(gw, { key_id: key.id, status: '429' });
    expect(record).toMatchObject({ error_code: 'rate_limit_exceeded', route: '/v1/messages', model: 'mock-chat', cost_usd: '0' });
  });

  it('a model outside the key’s allow-list: 403 model_not_allowed', async () => {
    const key = await gw.createKey(accountId, { name: 'narrow' });
    await gw.http
      .patch(`/v1/admin/keys/${key.id}`)
      .set(gw.admin())
      .send({ models: ['mock-text'] })
      .expect(200);
    expect((await send('responses', key.key)).status).toBe(403);
    const record = await recordOf(gw, { key_id: key.id });
    expect(record).toMatchObject({ status: 403, error_code: 'model_not_allowed', requested_model: 'mock-chat', upstream_attempts: 0 });
  });
});

describe('the session id, as the routing reads it (docs/routing.md, "Session affinity")', () => {
  const BODIES = {
    messages: { model: 'mock-chat', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
    responses: { model: 'mock-chat', input: 'hi', max_output_tokens: 16 },
  };
  const CASES: Array<[string, 'messages' | 'responses', Record<string, string>, object, string]> = [
    ['Claude Code’s header', 'messages', { 'x-claude-code-session-id': 'cc-header' }, {}, 'cc-header'],
    ['Claude Code’s metadata.user_id', 'messages', {}, { metadata: { user_id: 'user_ab12_account_cd34_session_cc-body' } }, 'cc-body'],
    ['Codex’s session_id header', 'responses', { session_id: 'codex-header' }, {}, 'codex-header'],
    ['Codex’s prompt_cache_key', 'responses', {}, { prompt_cache_key: 'codex-cache-key' }, 'codex-cache-key'],
  ];

  it.each(CASES)('%s', async (_, route, headers, fields, session) => {
    const key = await gw.createKey(accountId);
    const response = await gw.http
      .post(PATHS[route])
      .set('authorization', `Bearer ${key.key}`)
      .set(headers)
      .send({ ...BODIES[route], ...fields });
    expect(response.status, response.text).toBe(200);
    expect(await recordOf(gw, { key_id: key.id })).toMatchObject({ session_id: session });
  });

  it('none: null', async () => {
    const key = await gw.createKey(accountId);
    expect((await gw.chat(key.key, { model: 'mock-chat' })).status).toBe(200);
    expect(await recordOf(gw, { key_id: key.id })).toMatchObject({ session_id: null });
  });
});

describe('a client that goes away', () => {
  function cutShort(path: string, key: string, body: object, afterFirstBytes: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(`${gw.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
      request.on('error', () => resolve());
      request.on('response', (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.end(JSON.stringify(body));
      if (!afterFirstBytes) setTimeout(() => (request.destroy(), resolve()), 100);
      request.on('close', () => resolve());
      request.on('timeout', () => reject(new Error('timeout')));
    });
  }

  it('during a stream: 499, with the tokens sent so far', async () => {
    const key = await gw.createKey(accountId, { name: 'gone-stream' });
    await cutShort(
      '/v1/chat/completions',
      key.key,
      { model: 'slow-chat', messages: [{ role: 'user', content: 'hi' }], stream: true },
      true,
    );
    const record = await recordOf(gw, { key_id: key.id });
    expect(record).toMatchObject({ status: 499, error_code: 'client_closed_request', stream: true, model: 'slow-chat' });
    expect(record.first_byte_ms).not.toBeNull();
  });

  it('before a non-streamed reply: 499', async () => {
    const key = await gw.createKey(accountId, { name: 'gone-json' });
    await cutShort('/v1/messages', key.key, { model: 'slow-chat', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, false);
    const record = await recordOf(gw, { key_id: key.id });
    expect(record).toMatchObject({ status: 499, error_code: 'client_closed_request', stream: false, route: '/v1/messages' });
  });
});
