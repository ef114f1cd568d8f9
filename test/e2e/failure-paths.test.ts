import { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiErrorOf,
  captureLogger,
  collect,
  rawPost,
  secretFragments,
  settlesWithin,
  startE2e,
  usageFor,
  waitFor,
  type E2e,
} from './helpers';
import { DRIVERS, type UpstreamDriver } from './upstream-drivers';

/**
 * What the official client sees when the upstream misbehaves (docs/errors.md and docs/chat-and-streaming.md), for
 * every provider type: retries then fallbacks, 504 / 502 / 400 mappings, errors after the
 * stream started, client aborts; and the provider key never leaks into a response or a log.
 */
const FIRST_BYTE_TIMEOUT_MS = 300;

function configYaml(driver: UpstreamDriver, idleTimeoutMs = 2_000): string {
  const model = (id: string, upstream: string, extra = '') => `
  - id: ${id}
    provider: up
    upstream_model: ${upstream}
    capabilities: [chat, function_calling]
    context_window: 100000
    pricing: { input_per_million: 1, output_per_million: 2 }${extra}`;
  return `
upstream:
  connect_timeout_ms: 1000
  first_byte_timeout_ms: ${FIRST_BYTE_TIMEOUT_MS}
  idle_timeout_ms: ${idleTimeoutMs}
  max_retries: 1
  retry_base_delay_ms: 1
providers:
  up: { type: ${driver.type}, base_url: ${driver.baseUrl}, api_key_env: E2E_UPSTREAM_KEY }
models:${model('chat-model', 'claude-3-5-haiku-20241022')}${model('primary', 'primary-upstream', '\n    fallbacks: [backup]')}${model('backup', 'backup-upstream')}
`;
}

const ask = (content: string) => ({ model: 'chat-model', messages: [{ role: 'user' as const, content }] });

describe.each(DRIVERS)('e2e failure paths: %s upstream', (name, startDriver) => {
  let driver: UpstreamDriver;
  let e2e: E2e;
  let logs: ReturnType<typeof captureLogger>;
  /** Every raw response body this suite saw, checked for the provider key at the end. */
  const bodies: string[] = [];

  beforeAll(async () => {
    driver = await startDriver();
    logs = captureLogger();
    e2e = await startE2e({ configYaml: configYaml(driver), env: { E2E_UPSTREAM_KEY: driver.providerKey }, logger: logs.logger });
  });
  afterAll(async () => {
    await e2e?.close();
    await driver?.close();
  });

  /** Runs `run` and checks that it made exactly `count` upstream calls (retries included). */
  async function expectUpstreamCalls<T>(count: number, run: () => Promise<T>): Promise<T> {
    const before = driver.requestCount();
    const result = await run();
    expect(driver.requestCount() - before).toBe(count);
    return result;
  }

  async function rawChat(body: unknown): Promise<{ status: number; text: string; requestId: string | null }> {
    const response = await rawPost(e2e, '/v1/chat/completions', body);
    const text = await response.text();
    bodies.push(text);
    return { status: response.status, text, requestId: response.headers.get('x-request-id') };
  }

  it('retries a 500 (max_retries), then the fallback model answers under its own id', async () => {
    driver.status(500, 'Internal server error');
    driver.status(500, 'Internal server error');
    driver.text('From the backup.', { prompt: 8, completion: 4 });
    const first = driver.requestCount();
    const { data, response } = await expectUpstreamCalls(3, () =>
      e2e.client.chat.completions.create({ model: 'primary', messages: [{ role: 'user', content: 'Hello' }] }).withResponse(),
    );
    expect(data.model).toBe('backup');
    expect(data.choices[0]?.message.content).toBe('From the backup.');
    expect([first, first + 1, first + 2].map((index) => driver.upstreamModelOf(index))).toEqual([
      'primary-upstream',
      'primary-upstream',
      'backup-upstream',
    ]);
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ model: 'backup', status: 200, promptTokens: 8, completionTokens: 4 });
  });

  it('falls back for a stream too, before the first chunk', async () => {
    driver.status(503, 'Overloaded');
    driver.status(503, 'Overloaded');
    driver.stream(['Back', 'up'], { prompt: 5, completion: 2 });
    const { data: stream, response } = await expectUpstreamCalls(3, () =>
      e2e.client.chat.completions
        .create({ model: 'primary', messages: [{ role: 'user', content: 'Hello' }], stream: true, stream_options: { include_usage: true } })
        .withResponse(),
    );
    const collected = await collect(stream);
    expect(collected.text).toBe('Backup');
    expect([...collected.models]).toEqual(['backup']);
    expect(collected.usageChunks.map((chunk) => chunk.usage)).toEqual([
      // 5 x 1 + 2 x 2 USD per million tokens; Anthropic always reports its cache reads.
      {
        prompt_tokens: 5,
        completion_tokens: 2,
        total_tokens: 7,
        cost_usd: 0.000009,
        ...(driver.type === 'anthropic' ? { prompt_tokens_details: { cached_tokens: 0 } } : {}),
      },
    ]);
    expect(await usageFor(e2e, response.headers.get('x-request-id'))).toMatchObject({
      model: 'backup',
      status: 200,
      stream: true,
      promptTokens: 5,
      completionTokens: 2,
    });
  });

  it('answers 504 upstream_timeout when the upstream never answers', async () => {
    driver.hang();
    driver.hang();
    const { error, requestId } = await expectUpstreamCalls(2, async () => {
      const failure = await apiErrorOf(e2e.client.chat.completions.create(ask('Hello')));
      return { error: failure, requestId: failure.headers?.get('x-request-id') };
    });
    expect(error.status).toBe(504);
    expect(error.error).toEqual({ message: expect.any(String), type: 'upstream_error', param: null, code: 'upstream_timeout' });
    // docs/rate-limits.md: every chat response carries the rate-limit headers, errors included.
    expect(error.headers?.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
    expect(await usageFor(e2e, requestId)).toMatchObject({
      status: 504,
      errorCode: 'upstream_timeout',
      promptTokens: 0,
      completionTokens: 0,
    });
  });

  it('answers 502 upstream_bad_response when the upstream answers garbage', async () => {
    driver.garbage();
    driver.garbage();
    const error = await expectUpstreamCalls(2, () => apiErrorOf(e2e.client.chat.completions.create(ask('Hello'))));
    expect(error.status).toBe(502);
    expect(error.error).toEqual({ message: expect.any(String), type: 'upstream_error', param: null, code: 'upstream_bad_response' });
    expect(error.message).not.toContain('<html>');
  });

  it('answers 502 upstream_unavailable when the upstream drops the connection', async () => {
    driver.drop();
    driver.drop();
    const error = await expectUpstreamCalls(2, () => apiErrorOf(e2e.client.chat.completions.create(ask('Hello'))));
    expect(error.status).toBe(502);
    expect(error.error).toMatchObject({ type: 'upstream_error', code: 'upstream_unavailable' });
  });

  // A 200 that is not an event stream (a proxy's HTML page) must fail before the reply starts,
  // so it is retried and falls back instead of reaching the client as a 200 + error event.
  it('answers garbage on a stream request with 502 upstream_bad_response, after retrying', async () => {
    // Its own upstream and gateway: the scripted replies must not leak into other tests if this fails.
    const own = await startDriver();
    const gateway = await startE2e({ configYaml: configYaml(own), env: { E2E_UPSTREAM_KEY: own.providerKey } });
    try {
      own.garbage();
      own.garbage();
      const response = await rawPost(gateway, '/v1/chat/completions', { ...ask('Hello'), stream: true });
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_bad_response' } });
      expect(own.requestCount()).toBe(2);
    } finally {
      await gateway.close();
      await own.close();
    }
  });

  it("answers an upstream 400 as 400 upstream_rejected with the provider's message, without retrying", async () => {
    const message = 'prompt is too long: 250000 tokens > 200000 maximum';
    driver.status(400, message);
    const error = await expectUpstreamCalls(1, () => apiErrorOf(e2e.client.chat.completions.create(ask('Hello'))));
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'upstream_rejected' });
    expect((error.error as { message: string }).message).toContain(message);
  });

  it('answers a stream request the upstream refuses with a JSON error, before any event', async () => {
    driver.status(400, 'tools[0].name is invalid');
    const response = await expectUpstreamCalls(1, () => rawChat({ ...ask('Hello'), stream: true }));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ error: { type: 'invalid_request_error', code: 'upstream_rejected' } });
    const error = await apiErrorOf(
      (async () => {
        driver.hang();
        driver.hang();
        await e2e.client.chat.completions.create({ ...ask('Hello'), stream: true });
      })(),
    );
    expect(error.status).toBe(504);
    expect(error.error).toMatchObject({ type: 'upstream_error', code: 'upstream_timeout' });
  });

  it("answers an upstream credential failure as 502, without the provider's text or key", async () => {
    driver.credentialError();
    const response = await expectUpstreamCalls(1, () => rawChat(ask('Hello')));
    expect(response.status).toBe(502);
    const body = JSON.parse(response.text) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'upstream_error', param: null });
    for (const providerText of ['Incorrect API key', 'invalid x-api-key', 'API key not valid'])
      expect(response.text).not.toContain(providerText);
    expect(response.text).not.toContain(driver.providerKey);
    expect(secretFragments(response.text, driver.providerKey)).toEqual([]);
    expect(await usageFor(e2e, response.requestId)).toMatchObject({ status: 502 });
  });

  it('sends an error event when the upstream drops mid-stream, and records the usage', async () => {
    driver.streamThenDrop(['Hel', 'lo']);
    const { data: stream, response } = await expectUpstreamCalls(1, () =>
      e2e.client.chat.completions.create({ ...ask('Hello'), stream: true, stream_options: { include_usage: true } }).withResponse(),
    );
    let text = '';
    const error = await apiErrorOf(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
    );
    expect(text).toBe('Hello');
    expect(error).toBeInstanceOf(APIError);
    const payload = error.error as { type: string; code: string };
    expect(payload.type).toBe('upstream_error');
    expect(['upstream_unavailable', 'upstream_bad_response']).toContain(payload.code);
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ model: 'chat-model', stream: true, status: 502, errorCode: payload.code });
  });

  it('sends upstream_timeout as an error event when the upstream stalls mid-stream', async () => {
    const stalling = await startE2e({ configYaml: configYaml(driver, 300), env: { E2E_UPSTREAM_KEY: driver.providerKey } });
    try {
      driver.streamThenHold(['Hel', 'lo']);
      const index = driver.requestCount();
      const { data: stream, response } = await stalling.client.chat.completions.create({ ...ask('Hello'), stream: true }).withResponse();
      let text = '';
      const error = await apiErrorOf(
        (async () => {
          for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        })(),
      );
      expect(text).toBe('Hello');
      expect(error.error).toMatchObject({ type: 'upstream_error', code: 'upstream_timeout' });
      expect(await settlesWithin(driver.closed(index), 3_000)).toBe(true);
      expect(await usageFor(stalling, response.headers.get('x-request-id'))).toMatchObject({
        stream: true,
        status: 504,
        errorCode: 'upstream_timeout',
      });
    } finally {
      await stalling.close();
    }
  });

  it('closes the upstream connection when the client aborts mid-stream, and records a 499', async () => {
    driver.streamThenHold(['Hel', 'lo']);
    const controller = new AbortController();
    const index = driver.requestCount();
    const { data: stream, response } = await e2e.client.chat.completions
      .create({ ...ask('Hello'), stream: true }, { signal: controller.signal })
      .withResponse();
    let text = '';
    try {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (text === 'Hello') controller.abort();
      }
    } catch (error) {
      expect((error as Error).name).toMatch(/Abort/);
    }
    expect(text).toBe('Hello');
    expect(await settlesWithin(driver.closed(index), 3_000)).toBe(true);
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ model: 'chat-model', stream: true, status: 499, errorCode: 'client_closed_request' });
  });

  it('closes the upstream connection when a raw client goes away mid-stream', async () => {
    driver.streamThenHold(['Hel', 'lo']);
    const controller = new AbortController();
    const index = driver.requestCount();
    const response = await rawPost(e2e, '/v1/chat/completions', { ...ask('Hello'), stream: true }, { signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('lo')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += Buffer.from(value).toString('utf8');
    }
    controller.abort();
    expect(await settlesWithin(driver.closed(index), 3_000)).toBe(true);
    expect(await usageFor(e2e, response.headers.get('x-request-id'))).toMatchObject({ status: 499 });
  });

  it('cancels the upstream call when the client gives up before the reply (non-streamed)', async () => {
    driver.hang();
    const controller = new AbortController();
    const index = driver.requestCount();
    const requestId = `e2e-abort-${driver.type}`;
    const request = rawPost(e2e, '/v1/chat/completions', ask('Hello'), {
      signal: controller.signal,
      headers: { 'x-request-id': requestId },
    });
    await waitFor(() => (driver.requestCount() > index ? true : undefined), 'the upstream request');
    controller.abort();
    await expect(request).rejects.toThrow();
    expect(await settlesWithin(driver.closed(index), 3_000)).toBe(true);
    expect(await usageFor(e2e, requestId)).toMatchObject({
      model: 'chat-model',
      stream: false,
      status: 499,
      errorCode: 'client_closed_request',
    });
    expect(driver.requestCount()).toBe(index + 1);
  });

  it('never writes the provider key to a log line or a response', async () => {
    driver.credentialError();
    await rawChat(ask('Hello'));
    driver.garbage();
    driver.garbage();
    await rawChat(ask('Hello'));
    driver.hang();
    driver.hang();
    await rawChat(ask('Hello'));
    driver.status(400, `bad request for key ${driver.providerKey}`);
    const rejected = await rawChat(ask('Hello'));
    expect(rejected.status).toBe(400);

    const logText = logs.text();
    expect(logText).toContain('"requestId"');
    expect(logText).not.toContain(driver.providerKey);
    expect(secretFragments(logText, driver.providerKey)).toEqual([]);
    const allBodies = bodies.join('\n');
    expect(allBodies).not.toContain(driver.providerKey);
    expect(secretFragments(allBodies, driver.providerKey)).toEqual([]);
  });
});
