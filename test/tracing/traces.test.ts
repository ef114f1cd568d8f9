import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatCompletionReply, chatStreamReply, startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { upstreamSection } from '../e2e/helpers';
import { clientTrace, spansOf } from './trace-helpers';

/**
 * docs/tracing.md: the spans a gateway with traces on sends to an OTLP/HTTP receiver: a server
 * span per model request, a client span per upstream attempt, the client's trace continued and
 * passed on to the upstream, content only when the operator opts in.
 */
const UPSTREAM_MODEL = 'gpt-4o-mini-2024-07-18';

function configYaml(upstream: MockOpenAiUpstream, receiver: OtlpReceiver, tracing: string): string {
  return `${upstreamSection()}tracing:
  endpoint: ${receiver.endpoint}
  headers: { x-collector-token: collector-secret }
${tracing}
providers:
  oai: { type: openai, base_url: ${upstream.baseUrl}, api_key_env: TRACE_OPENAI_KEY }
  oai-backup: { type: openai, base_url: ${upstream.baseUrl}, api_key_env: TRACE_OPENAI_KEY }
models:
  - id: gpt-chat
    provider: oai
    upstream_model: ${UPSTREAM_MODEL}
    capabilities: [chat]
    context_window: 128000
    pricing: { input_per_million: 0.15, output_per_million: 0.6 }
    fallbacks: [backup-chat]
  - id: backup-chat
    provider: oai-backup
    upstream_model: backup-model
    capabilities: [chat]
    context_window: 128000
    pricing: { input_per_million: 1, output_per_million: 2 }
  - id: gpt-embed
    provider: oai
    upstream_model: text-embedding-3-small
    capabilities: [embeddings]
    context_window: 8191
    pricing: { input_per_million: 0.02, output_per_million: 0 }
`;
}

interface Fixture {
  upstream: MockOpenAiUpstream;
  receiver: OtlpReceiver;
  gateway: TestGateway;
  key: string;
  keyId: string;
  accountId: string;
}

function useTracedGateway(tracing = '') {
  const fixture = {} as Fixture;
  beforeAll(async () => {
    fixture.upstream = await startMockOpenAiUpstream();
    fixture.receiver = await startOtlpReceiver();
    fixture.gateway = await startTestGateway({
      configYaml: configYaml(fixture.upstream, fixture.receiver, tracing),
      env: { TRACE_OPENAI_KEY: 'sk-upstream-trace-key-0123456789' },
    });
    fixture.accountId = await fixture.gateway.createAccount();
    const created = await fixture.gateway.createKey(fixture.accountId);
    fixture.key = created.key;
    fixture.keyId = created.id;
  });
  beforeEach(() => {
    fixture.upstream.requests.length = 0;
  });
  afterAll(async () => {
    await fixture.gateway?.close();
    await fixture.upstream?.close();
    await fixture.receiver?.close();
  });
  return fixture;
}

describe('traces', () => {
  const fixture = useTracedGateway();

  it('continues the client trace: a server span named by the GenAI conventions, a client span under it, traceparent passed on', async () => {
    const { upstream, gateway, key } = fixture;
    upstream.reply(chatCompletionReply('Hello there', { prompt: 11, completion: 7 }, UPSTREAM_MODEL));
    const client = clientTrace();
    const response = await gateway
      .chat(key, { model: 'gpt-chat', messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 50, temperature: 0.3, top_p: 0.9 })
      .set('traceparent', client.traceparent)
      .expect(200);

    const { server, clients } = await spansOf(fixture.receiver, fixture.gateway.gateway, client.traceId);
    expect(server.name).toBe('chat gpt-chat');
    expect(server.parentSpanId).toBe(client.spanId);
    expect(server.resource['service.name']).toBe('model-gateway');
    expect(server.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-chat',
      'gen_ai.response.model': 'gpt-chat',
      'gen_ai.request.max_tokens': 50,
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.top_p': 0.9,
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.response.finish_reasons': ['stop'],
      'gateway.key.id': fixture.keyId,
      'gateway.account.id': fixture.accountId,
      'gateway.deployment': 'oai',
      'gateway.cost_usd': Number(response.headers['x-gateway-cost-usd']),
      'gateway.request.id': response.headers['x-request-id'],
      'gateway.upstream_attempts': 1,
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
    });
    expect(server.attributes['error.type']).toBeUndefined();

    expect(clients).toHaveLength(1);
    const [attempt] = clients as [ReceivedSpan];
    expect(attempt.parentSpanId).toBe(server.spanId);
    expect(attempt.name).toBe(`chat ${UPSTREAM_MODEL}`);
    expect(attempt.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': UPSTREAM_MODEL,
      'gateway.deployment': 'oai',
    });
    expect(upstream.requests[0]?.headers.traceparent).toBe(`00-${client.traceId}-${attempt.spanId}-01`);

    // Content is not in spans unless the operator opts in.
    for (const span of [server, attempt]) {
      expect(span.attributes['gen_ai.input.messages']).toBeUndefined();
      expect(span.attributes['gen_ai.output.messages']).toBeUndefined();
    }
    expect(JSON.stringify(fixture.receiver.spans)).not.toContain('Say hello');
    expect(fixture.receiver.exports.at(-1)?.['x-collector-token']).toBe('collector-secret');
  });

  it('shows a retry and a fallback as client spans of their own', async () => {
    const { upstream, gateway, key } = fixture;
    const failure = { type: 'json' as const, status: 503, body: { error: { message: 'overloaded', type: 'server_error' } } };
    upstream.reply(failure, failure, chatCompletionReply('From the backup', { prompt: 5, completion: 3 }, 'backup-model'));
    const client = clientTrace();
    await gateway.chat(key, { model: 'gpt-chat' }).set('traceparent', client.traceparent).expect(200);

    const { server, clients } = await spansOf(fixture.receiver, fixture.gateway.gateway, client.traceId);
    expect(clients.map((span) => [span.attributes['gateway.deployment'], span.attributes['error.type'], span.parentSpanId])).toEqual([
      ['oai', 'unavailable', server.spanId],
      ['oai', 'unavailable', server.spanId],
      ['oai-backup', undefined, server.spanId],
    ]);
    expect(clients[0]?.attributes['http.response.status_code']).toBe(503);
    expect(clients[0]?.statusCode).toBe(2);
    expect(clients[2]?.name).toBe('chat backup-model');
    // Each attempt carries its own span's traceparent upstream.
    expect(upstream.requests.map((request) => request.headers.traceparent)).toEqual(
      clients.map((span) => `00-${client.traceId}-${span.spanId}-01`),
    );
    expect(server.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-chat',
      'gen_ai.response.model': 'backup-chat',
      'gateway.deployment': 'oai-backup',
      'gateway.upstream_attempts': 3,
    });
  });

  it('traces a stream until its end: finish reasons and usage on the server span, the client span open until then', async () => {
    const { upstream, gateway, key } = fixture;
    upstream.reply(chatStreamReply(['Hel', 'lo!'], { prompt: 13, completion: 4 }, UPSTREAM_MODEL));
    const client = clientTrace();
    const response = await gateway
      .chat(key, { model: 'gpt-chat', stream: true, stream_options: { include_usage: true } })
      .set('traceparent', client.traceparent)
      .expect(200);
    expect(response.text).toContain('[DONE]');

    const { server, clients } = await spansOf(fixture.receiver, fixture.gateway.gateway, client.traceId);
    expect(server.attributes).toMatchObject({
      'gateway.stream': true,
      'gen_ai.usage.input_tokens': 13,
      'gen_ai.usage.output_tokens': 4,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.response.id': 'chatcmpl-x',
    });
    expect(clients).toHaveLength(1);
    expect(clients[0]?.attributes).toMatchObject({ 'gen_ai.usage.output_tokens': 4, 'gen_ai.response.finish_reasons': ['stop'] });
    expect(upstream.requests[0]?.headers.traceparent).toBe(`00-${client.traceId}-${clients[0]?.spanId}-01`);
  });

  it('starts a trace of its own for a client without traceparent, and traces embeddings', async () => {
    const { upstream, gateway, key } = fixture;
    upstream.reply({
      type: 'json',
      body: {
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }],
        model: 'x',
        usage: { prompt_tokens: 3, total_tokens: 3 },
      },
    });
    await gateway.http.post('/v1/embeddings').set('authorization', `Bearer ${key}`).send({ model: 'gpt-embed', input: 'one' }).expect(200);
    const traceparent = upstream.requests[0]?.headers.traceparent;
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = String(traceparent).split('-')[1] as string;
    const { server, clients } = await spansOf(fixture.receiver, fixture.gateway.gateway, traceId);
    expect(server.parentSpanId).toBe('');
    expect(server.name).toBe('embeddings gpt-embed');
    expect(server.attributes).toMatchObject({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.usage.input_tokens': 3 });
    expect(clients.map((span) => span.name)).toEqual(['embeddings text-embedding-3-small']);
  });

  it('traces a refusal: the error code as error.type, no upstream attempt', async () => {
    const { gateway, key } = fixture;
    const client = clientTrace();
    await gateway.chat(key, { model: 'no-such-model' }).set('traceparent', client.traceparent).expect(404);
    const { server, clients } = await spansOf(fixture.receiver, fixture.gateway.gateway, client.traceId);
    expect(server.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': 'model_not_found' });
    expect(clients).toEqual([]);
  });

  it('traces a request refused at the door (no key) without a key id', async () => {
    const client = clientTrace();
    await fixture.gateway.http.post('/v1/chat/completions').set('traceparent', client.traceparent).send({ model: 'gpt-chat' }).expect(401);
    const { server } = await spansOf(fixture.receiver, fixture.gateway.gateway, client.traceId);
    expect(server.name).toBe('POST /v1/chat/completions');
    expect(server.attributes['error.type']).toBe('missing_api_key');
    expect(server.attributes['gateway.key.id']).toBeUndefined();
  });
});

describe('traces with content capture on', () => {
  const fixture = useTracedGateway('  capture_message_content: true');

  it('records the prompt and the reply in the conventions message form', async () => {
    const { upstream, gateway, key } = fixture;
    upstream.reply(chatCompletionReply('Hello there', { prompt: 11, completion: 7 }, UPSTREAM_MODEL));
    const client = clientTrace();
    await gateway
      .chat(key, {
        model: 'gpt-chat',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Say hello' },
        ],
      })
      .set('traceparent', client.traceparent)
      .expect(200);
    const { server } = await spansOf(fixture.receiver, fixture.gateway.gateway, client.traceId);
    expect(JSON.parse(String(server.attributes['gen_ai.system_instructions']))).toEqual([{ type: 'text', content: 'Be brief.' }]);
    expect(JSON.parse(String(server.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Say hello' }] },
    ]);
    expect(JSON.parse(String(server.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello there' }], finish_reason: 'stop' },
    ]);
  });

  it('records a streamed reply as assembled', async () => {
    const { upstream, gateway, key } = fixture;
    upstream.reply(chatStreamReply(['Hel', 'lo!'], { prompt: 13, completion: 4 }, UPSTREAM_MODEL));
    const client = clientTrace();
    await gateway.chat(key, { model: 'gpt-chat', stream: true }).set('traceparent', client.traceparent).expect(200);
    const { server } = await spansOf(fixture.receiver, fixture.gateway.gateway, client.traceId);
    expect(JSON.parse(String(server.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }], finish_reason: 'stop' },
    ]);
  });
});
