import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MOCK_MODEL,
  messageBody,
  startMockAnthropicUpstream,
  textStream,
  type MockAnthropicUpstream,
} from '../helpers/mock-anthropic-upstream';
import { textResponse, textResponseStream } from '../helpers/mock-openai-responses';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { modelEntry } from '../e2e/helpers';
import { clientTrace, spansOf } from './trace-helpers';

/**
 * docs/tracing.md: every model route is traced by the one pipeline (here /v1/messages passed
 * through to an Anthropic upstream, streamed or not, and /v1/messages/count_tokens counted by
 * it; /v1/responses passed through to a Responses API), and a gateway with traces off sends nothing.
 */
const configYaml = (upstream: MockAnthropicUpstream, tracing: string) => `
${tracing}
providers:
  claude: { type: anthropic, base_url: ${upstream.baseUrl}, api_key_env: TRACE_ANTHROPIC_KEY }
models:
${modelEntry('haiku', 'claude', MOCK_MODEL, 'chat', 200_000, 'input_per_million: 0.8, output_per_million: 4', 'max_output_tokens: 8192')}
`;

const env = { TRACE_ANTHROPIC_KEY: 'sk-ant-api03-trace-0123456789abcdef' };

function useGateway(tracing: (receiver: OtlpReceiver) => string) {
  const fixture = {} as { upstream: MockAnthropicUpstream; receiver: OtlpReceiver; gateway: TestGateway; key: string };
  beforeAll(async () => {
    fixture.upstream = await startMockAnthropicUpstream();
    fixture.receiver = await startOtlpReceiver();
    fixture.gateway = await startTestGateway({ configYaml: configYaml(fixture.upstream, tracing(fixture.receiver)), env });
    fixture.key = (await fixture.gateway.createKey(await fixture.gateway.createAccount())).key;
  });
  afterAll(async () => {
    await fixture.gateway?.close();
    await fixture.upstream?.close();
    await fixture.receiver?.close();
  });
  return fixture;
}

const messagesRequest = { model: 'haiku', max_tokens: 100, temperature: 0.5, stream: true, messages: [{ role: 'user', content: 'Hi' }] };

describe('traces of a passed-through route', () => {
  const fixture = useGateway((receiver) => `tracing:\n  endpoint: ${receiver.endpoint}`);

  it('traces /v1/messages streamed from an Anthropic upstream, traceparent passed on', async () => {
    const { upstream, gateway, key, receiver } = fixture;
    upstream.reply({ type: 'sse', events: textStream(['Hel', 'lo'], 'end_turn', { input_tokens: 25, output_tokens: 15 }) });
    const client = clientTrace();
    const response = await gateway.http
      .post('/v1/messages')
      .set('x-api-key', key)
      .set('traceparent', client.traceparent)
      .send(messagesRequest)
      .expect(200);
    expect(response.text).toContain('message_stop');

    const { server, clients } = await spansOf(receiver, gateway.gateway, client.traceId);
    expect(server.name).toBe('chat haiku');
    expect(server.parentSpanId).toBe(client.spanId);
    expect(server.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.max_tokens': 100,
      'gen_ai.request.temperature': 0.5,
      'gen_ai.usage.input_tokens': 25,
      'gen_ai.usage.output_tokens': 15,
      'http.route': '/v1/messages',
      'gateway.stream': true,
      'gen_ai.response.finish_reasons': ['end_turn'],
    });
    expect(clients.map((span) => [span.name, span.parentSpanId])).toEqual([[`chat ${MOCK_MODEL}`, server.spanId]]);
    expect(clients[0]?.attributes['gen_ai.response.finish_reasons']).toEqual(['end_turn']);
    expect(upstream.requests.at(-1)?.headers.traceparent).toBe(`00-${client.traceId}-${clients[0]?.spanId}-01`);
  });

  it("gives a passed-through reply's stop reason as its finish reason", async () => {
    const { upstream, gateway, key, receiver } = fixture;
    upstream.reply({
      type: 'json',
      body: messageBody([{ type: 'text', text: 'Hel' }], 'max_tokens', { input_tokens: 12, output_tokens: 3 }),
    });
    const client = clientTrace();
    await gateway.http
      .post('/v1/messages')
      .set('x-api-key', key)
      .set('traceparent', client.traceparent)
      .send({ ...messagesRequest, stream: false })
      .expect(200);

    const { server } = await spansOf(receiver, gateway.gateway, client.traceId);
    expect(server.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['max_tokens'],
      'gen_ai.usage.input_tokens': 12,
      'gateway.stream': false,
    });
  });

  it('traces the upstream call of /v1/messages/count_tokens as a client span', async () => {
    const { upstream, gateway, key, receiver } = fixture;
    upstream.reply({ type: 'json', body: { input_tokens: 42 } });
    const client = clientTrace();
    const response = await gateway.http
      .post('/v1/messages/count_tokens')
      .set('x-api-key', key)
      .set('traceparent', client.traceparent)
      .send({ model: 'haiku', messages: [{ role: 'user', content: 'Hi' }] })
      .expect(200);
    expect(response.body).toEqual({ input_tokens: 42 });

    const { server, clients } = await spansOf(receiver, gateway.gateway, client.traceId);
    expect(server.attributes).toMatchObject({ 'http.route': '/v1/messages/count_tokens', 'http.response.status_code': 200 });
    expect(clients.map((span) => [span.name, span.parentSpanId])).toEqual([[`chat ${MOCK_MODEL}`, server.spanId]]);
    expect(clients[0]?.attributes).toMatchObject({ 'gen_ai.request.model': MOCK_MODEL, 'gateway.model': 'haiku' });
    const counted = upstream.requests.at(-1);
    expect(counted?.path).toBe('/v1/messages/count_tokens');
    expect(counted?.headers.traceparent).toBe(`00-${client.traceId}-${clients[0]?.spanId}-01`);
  });
});

describe('traces of /v1/responses passed through', () => {
  const fixture = {} as { upstream: MockOpenAiUpstream; receiver: OtlpReceiver; gateway: TestGateway; key: string };
  beforeAll(async () => {
    fixture.upstream = await startMockOpenAiUpstream();
    fixture.receiver = await startOtlpReceiver();
    const configYaml = `
tracing:
  endpoint: ${fixture.receiver.endpoint}
providers:
  native: { type: openai, base_url: ${fixture.upstream.baseUrl}, api_key_env: TRACE_OPENAI_KEY, responses_api: true }
models:
  - id: gpt-native
    provider: native
    upstream_model: gpt-native-2026
    capabilities: [chat]
    context_window: 128000
    pricing: { input_per_million: 1, output_per_million: 2 }
`;
    fixture.gateway = await startTestGateway({ configYaml, env: { TRACE_OPENAI_KEY: 'sk-upstream-trace-key-0123456789' } });
    fixture.key = (await fixture.gateway.createKey(await fixture.gateway.createAccount())).key;
  });
  afterAll(async () => {
    await fixture.gateway?.close();
    await fixture.upstream?.close();
    await fixture.receiver?.close();
  });

  it.each([
    ['streamed', true, 'completed'],
    ['not streamed, cut short', false, 'max_output_tokens'],
  ])("gives the reply's end as its finish reason (%s)", async (_name, stream, finishReason) => {
    const { upstream, gateway, key, receiver } = fixture;
    const counts = { input: 9, output: 4 };
    if (stream) upstream.reply(textResponseStream('gpt-native-2026', ['Hel', 'lo'], counts));
    else {
      const reply = {
        ...textResponse('gpt-native-2026', 'Hel', counts),
        status: 'incomplete',
        incomplete_details: { reason: finishReason },
      };
      upstream.reply({ type: 'json', body: reply });
    }
    const client = clientTrace();
    await gateway.http
      .post('/v1/responses')
      .set('authorization', `Bearer ${key}`)
      .set('traceparent', client.traceparent)
      .send({ model: 'gpt-native', input: 'Hi', stream })
      .expect(200);

    const { server, clients } = await spansOf(receiver, gateway.gateway, client.traceId);
    expect(server.attributes).toMatchObject({
      'http.route': '/v1/responses',
      'gen_ai.response.finish_reasons': [finishReason],
      'gen_ai.usage.input_tokens': 9,
      'gen_ai.usage.output_tokens': 4,
    });
    expect(clients.map((span) => span.name)).toEqual(['chat gpt-native-2026']);
  });
});

describe('traces off', () => {
  const fixture = useGateway(() => '');

  it('sends no span and passes no traceparent upstream', async () => {
    const { upstream, gateway, key, receiver } = fixture;
    expect(gateway.gateway.tracing).toBeNull();
    upstream.reply({ type: 'sse', events: textStream(['Hi']) });
    await gateway.http
      .post('/v1/messages')
      .set('x-api-key', key)
      .set('traceparent', clientTrace().traceparent)
      .send(messagesRequest)
      .expect(200);
    expect(upstream.requests[0]?.headers.traceparent).toBeUndefined();
    expect(receiver.spans).toEqual([]);
  });
});
