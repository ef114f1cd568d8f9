import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger, type LogLine } from '../helpers/capture-logger';
import { slowChatConfig, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway';

/**
 * The access log (README, "Operations"): one JSON line per request with the request id, key
 * id (never the key), model, status, latencies and tokens; streams cut short by the client
 * included. Keys, tokens and query strings never reach a log line or an error body.
 */
const CONFIG = slowChatConfig('{ chunk_delay_ms: 100, chunks: 20 }');

describe('access log', () => {
  const logs = captureLogger('info');
  let gw: TestGateway;
  let key: string;
  let keyId: string;
  let accountId: string;
  let usageKey: string;

  beforeAll(async () => {
    gw = await startTestGateway({ configYaml: CONFIG, logger: logs.logger });
    accountId = await gw.createAccount();
    ({ key, id: keyId } = await gw.createKey(accountId));
    usageKey = await gw.createUsageKey(accountId);
  });
  afterAll(() => gw?.close());

  const lineFor = async (requestId: string): Promise<LogLine> => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const line = logs.lines().find((entry) => entry.msg === 'request' && entry.requestId === requestId);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no access log line for ${requestId}`);
  };

  it('logs a model call with key id, account, model, provider, status, latencies and tokens', async () => {
    const response = await gw.http
      .post('/v1/chat/completions?api_key=should-not-be-logged')
      .set('authorization', `Bearer ${key}`)
      .set('x-request-id', 'log-test-1')
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'a prompt that must not be logged' }] });
    expect(response.status).toBe(200);
    const line = await lineFor('log-test-1');
    expect(line).toMatchObject({
      method: 'POST',
      route: '/v1/chat/completions',
      path: '/v1/chat/completions',
      status: 200,
      keyId,
      accountId,
      model: 'mock-chat',
      provider: 'mock',
      promptTokens: response.body.usage.prompt_tokens,
      completionTokens: response.body.usage.completion_tokens,
    });
    expect(line.latencyMs).toEqual(expect.any(Number));
    expect(line.overheadMs).toEqual(expect.any(Number));
    expect(line.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(logs.text()).not.toContain('should-not-be-logged');
    expect(logs.text()).not.toContain('a prompt that must not be logged');
  });

  it("logs the same fields for a model call served without Express's router (no query string)", async () => {
    for (const [path, requestId, body] of [
      ['/v1/chat/completions', 'log-test-direct-chat', { model: 'mock-chat', messages: [{ role: 'user', content: 'hello' }] }],
      ['/v1/embeddings', 'log-test-direct-embed', { model: 'mock-embed', input: 'hello' }],
    ] as const) {
      const response = await gw.http.post(path).set('authorization', `Bearer ${key}`).set('x-request-id', requestId).send(body);
      expect(response.status).toBe(200);
      expect(response.headers['x-request-id']).toBe(requestId);
      const line = await lineFor(requestId);
      expect(line).toMatchObject({
        method: 'POST',
        route: path,
        path,
        status: 200,
        keyId,
        accountId,
        promptTokens: response.body.usage.prompt_tokens,
      });
      expect(line.ip).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    }
    const refused = await gw.http
      .post('/v1/chat/completions')
      .set('x-request-id', 'log-test-direct-401')
      .send({ model: 'mock-chat', messages: [] });
    expect(refused.status).toBe(401);
    expect(await lineFor('log-test-direct-401')).toMatchObject({ route: '/v1/chat/completions', status: 401 });
  });

  it('logs a stream the client abandoned, with the tokens it got and aborted: true', async () => {
    const controller = new AbortController();
    const response = await fetch(`${gw.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'log-test-stream' },
      body: JSON.stringify({
        model: 'slow-chat',
        messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten eleven twelve' }],
        stream: true,
      }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    controller.abort();
    const line = await lineFor('log-test-stream');
    expect(line).toMatchObject({ status: 200, stream: true, aborted: true, model: 'slow-chat', keyId });
    expect(line.completionTokens).toEqual(expect.any(Number));
  });

  it('logs the path the client asked for, under the route of its mount, for the dashboard pages', async () => {
    const response = await gw.http.get('/dashboard/accounts?tab=keys').set('x-request-id', 'log-test-dashboard');
    expect(response.status).toBe(200);
    expect(await lineFor('log-test-dashboard')).toMatchObject({
      method: 'GET',
      path: '/dashboard/accounts',
      route: '/dashboard/*',
      status: 200,
    });
  });

  it('never writes a key, the admin token or a usage key to the log, also for refused ones', async () => {
    const wrongKey = `sk-${'Z'.repeat(44)}abcd`;
    await gw.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${wrongKey}`)
      .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'x' }] });
    await gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${usageKey}`);
    await gw.http.get('/v1/admin/accounts').set('authorization', 'Bearer wrong-admin-token-value');
    await gw.http.get('/v1/admin/accounts').set(gw.admin());
    const text = logs.text();
    for (const secret of [key, key.slice(3, 20), wrongKey, usageKey, usageKey.slice(3, 20), TEST_ADMIN_TOKEN, 'wrong-admin-token-value']) {
      expect(text).not.toContain(secret);
    }
    // The usage key's id is logged instead.
    expect(logs.lines().some((entry) => entry.route === '/v1/usage/keys' && typeof entry.usageKeyId === 'string')).toBe(true);
  });

  it('never echoes a key in an error body', async () => {
    const candidates = [`sk-${'Q'.repeat(48)}`, `uk-${'Q'.repeat(48)}`, 'sk-short', `sk-${'Q'.repeat(47)}!`];
    for (const candidate of candidates) {
      for (const request of [
        gw.http
          .post('/v1/chat/completions')
          .set('authorization', `Bearer ${candidate}`)
          .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'x' }] }),
        gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${candidate}`),
        gw.http.get('/v1/admin/accounts').set('authorization', `Bearer ${candidate}`),
      ]) {
        const response = await request;
        expect(response.status).toBe(401);
        expect(response.text).not.toContain(candidate);
        expect(response.text).not.toContain('QQQQQQQQ');
      }
    }
  });
});
