import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOCK_MODEL, startMockAnthropicUpstream, textStream, type MockAnthropicUpstream } from '../helpers/mock-anthropic-upstream';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { clientTrace, spansOf } from './trace-helpers';

/**
 * docs/tracing.md: every model route is traced by the one pipeline (here /v1/messages passed
 * through to an Anthropic upstream, streamed), and a gateway with traces off sends nothing.
 */
const configYaml = (upstream: MockAnthropicUpstream, tracing: string) => `
${tracing}
providers:
  claude: { type: anthropic, base_url: ${upstream.baseUrl}, api_key_env: TRACE_ANTHROPIC_KEY }
models:
  - id: haiku
    provider: claude
    upstream_model: ${MOCK_MODEL}
    capabilities: [chat]
    context_window: 200000
    max_output_tokens: 8192
    pricing: { input_per_million: 0.8, output_per_million: 4 }
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
    });
    expect(clients.map((span) => [span.name, span.parentSpanId])).toEqual([[`chat ${MOCK_MODEL}`, server.spanId]]);
    expect(upstream.requests[0]?.headers.traceparent).toBe(`00-${client.traceId}-${clients[0]?.spanId}-01`);
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
