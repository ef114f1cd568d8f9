import { describe, expect, it } from 'vitest';
import { chatChunk, type MockOpenAiUpstream, type SseStep } from '../helpers/mock-openai-upstream';
import { textResponseStream } from '../helpers/mock-openai-responses';
import { apiErrorOf, rawPost, settlesWithin, upstreamSection, usageFor } from './helpers';
import { useResponsesE2e } from './responses-setup';

/**
 * /v1/responses shares the chat route's machinery: failures mid-stream, cancellation when the
 * client goes away, per-key limits, and the `mock` provider type.
 */
function configYaml(chat: MockOpenAiUpstream, native: MockOpenAiUpstream): string {
  return `${upstreamSection()}
providers:
  chat: { type: openai, base_url: ${chat.baseUrl} }
  native: { type: openai, base_url: ${native.baseUrl}, responses_api: true }
  mock: { type: mock }
models:
  - id: chat-model
    provider: chat
    capabilities: [chat, function_calling]
    context_window: 128000
    pricing: { input_per_million: 1, output_per_million: 2 }
  - id: native-model
    provider: native
    capabilities: [chat]
    context_window: 128000
    pricing: { input_per_million: 1, output_per_million: 2 }
  - id: mock-chat
    provider: mock
    capabilities: [chat]
    context_window: 32000
    pricing: { input_per_million: 1, output_per_million: 2 }
`;
}

const chunk = (delta: Record<string, unknown>) => chatChunk(delta, null, 'u');

/** The `type` of every event of a raw SSE body. */
function eventTypes(body: string): { type: string; [key: string]: unknown }[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string });
}

describe('e2e: /v1/responses failure paths and shared limits', () => {
  const responses = useResponsesE2e(configYaml);

  it('translated: an upstream that drops mid-stream ends the stream with response.failed, metered as 502', async () => {
    const { chat, e2e } = responses;
    const events: SseStep[] = [{ data: chunk({ role: 'assistant', content: 'Hel' }) }, { delayMs: 100, drop: true }];
    chat.reply({ type: 'sse', events }, { type: 'sse', events });
    const response = await rawPost(e2e, '/v1/responses', { model: 'chat-model', input: 'hi', stream: true });
    expect(response.status).toBe(200);
    const received = eventTypes(await response.text());
    expect(received.at(-1)).toMatchObject({
      type: 'response.failed',
      response: { status: 'failed', error: { code: 'upstream_unavailable' } },
    });
    expect(received.map((event) => event.type)).toContain('response.output_text.delta');
    expect(await usageFor(e2e, response.headers.get('x-request-id'))).toMatchObject({
      stream: true,
      status: 502,
      errorCode: 'upstream_unavailable',
    });
  });

  it('passed through: a stream that ends before response.completed gets an error event, metered as 502', async () => {
    const { native, e2e } = responses;
    const whole = textResponseStream('u', ['a', 'b'], { input: 1, output: 1 });
    const cut = whole.type === 'sse' ? whole.events.slice(0, 4) : [];
    native.reply({ type: 'sse', events: cut, done: false });
    const response = await rawPost(e2e, '/v1/responses', { model: 'native-model', input: 'hi', stream: true });
    const received = eventTypes(await response.text());
    expect(received.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'error',
    ]);
    expect(received.at(-1)).toMatchObject({ code: 'upstream_bad_response' });
    expect(await usageFor(e2e, response.headers.get('x-request-id'))).toMatchObject({ status: 502 });
  });

  it('a client that goes away mid-stream closes the upstream call and is recorded as 499', async () => {
    const { chat, e2e } = responses;
    chat.reply({
      type: 'sse',
      events: [{ data: chunk({ role: 'assistant', content: 'Hel' }) }, { delayMs: 1_500, data: chunk({ content: 'lo' }) }],
    });
    const controller = new AbortController();
    const { data: stream, response } = await e2e.client.responses
      .create({ model: 'chat-model', input: 'hi', stream: true }, { signal: controller.signal })
      .withResponse();
    const upstreamRequest = chat.requests.at(-1);
    try {
      for await (const event of stream) if (event.type === 'response.output_text.delta') controller.abort();
    } catch (error) {
      expect((error as Error).name).toMatch(/Abort/);
    }
    expect(upstreamRequest && (await settlesWithin(upstreamRequest.aborted, 3_000))).toBe(true);
    expect(await usageFor(e2e, response.headers.get('x-request-id'))).toMatchObject({
      model: 'chat-model',
      stream: true,
      status: 499,
      errorCode: 'client_closed_request',
    });
  });

  it('the per-key request limit is shared with chat: 429 with retry-after and the error shape', async () => {
    const { e2e } = responses;
    const accountId = await e2e.gateway.createAccount();
    const { key } = await e2e.gateway.createKey(accountId, { rpm: 1 });
    const first = await rawPost(
      e2e,
      '/v1/chat/completions',
      { model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { authorization: `Bearer ${key}` } },
    );
    expect(first.status).toBe(200);
    const second = await rawPost(
      e2e,
      '/v1/responses',
      { model: 'mock-chat', input: 'hi' },
      { headers: { authorization: `Bearer ${key}` } },
    );
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBeTruthy();
    expect(second.headers.get('x-ratelimit-limit-requests')).toBe('1');
    expect(((await second.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');
  });

  it('a bad key is 401 in the error shape', async () => {
    const { e2e } = responses;
    const response = await rawPost(
      e2e,
      '/v1/responses',
      { model: 'mock-chat', input: 'hi' },
      { headers: { authorization: 'Bearer sk-wrong' } },
    );
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
  });

  it('the mock provider type answers through the translation, create and stream', async () => {
    const { e2e } = responses;
    const reply = await e2e.client.responses.create({ model: 'mock-chat', input: 'hello there' });
    expect(reply.status).toBe('completed');
    expect(reply.output_text.length).toBeGreaterThan(0);
    expect(reply.usage?.input_tokens).toBeGreaterThan(0);
    const stream = e2e.client.responses.stream({ model: 'mock-chat', input: 'hello there' });
    const final = await stream.finalResponse();
    expect(final.output[0]).toMatchObject({ type: 'message', status: 'completed' });
    const error = await apiErrorOf(
      e2e.client.responses.create({
        model: 'mock-chat',
        input: 'x',
        tools: [{ type: 'function', name: 'f', parameters: {}, strict: false }],
      }),
    );
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ code: 'unsupported_capability', param: 'tools' });
  });
});
