import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { converseReply, converseTextEvents } from '../helpers/mock-bedrock-upstream';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver';
import { useBedrockE2e } from '../e2e/bedrock-setup';
import { collect, startE2e, upstreamSection, type E2e } from '../e2e/helpers';
import { DRIVERS, type UpstreamDriver } from '../e2e/upstream-drivers';
import { clientTrace, spansOf } from './trace-helpers';

/**
 * docs/tracing.md: every provider type sends each attempt's `traceparent` upstream, streamed or
 * not (the drivers' wire formats of test/e2e/upstream-drivers.ts, and Bedrock, whose requests
 * are signed: the header is sent unsigned beside the signature).
 */
const configYaml = (driver: UpstreamDriver, receiver: OtlpReceiver) => `${upstreamSection()}
tracing:
  endpoint: ${receiver.endpoint}
providers:
  up: { type: ${driver.type}, base_url: ${driver.baseUrl}, api_key_env: E2E_UPSTREAM_KEY }
models:
  - id: chat-model
    provider: up
    upstream_model: chat-upstream-2026
    capabilities: [chat]
    context_window: 100000
    pricing: { input_per_million: 1, output_per_million: 2 }
`;

describe.each(DRIVERS)('traceparent sent upstream by the %s provider type', (_name, startDriver) => {
  let driver: UpstreamDriver;
  let receiver: OtlpReceiver;
  let e2e: E2e;
  beforeAll(async () => {
    driver = await startDriver();
    receiver = await startOtlpReceiver();
    e2e = await startE2e({ configYaml: configYaml(driver, receiver), env: { E2E_UPSTREAM_KEY: driver.providerKey } });
  });
  afterAll(async () => {
    await e2e?.close();
    await driver?.close();
    await receiver?.close();
  });

  it.each([false, true])('stream: %s', async (stream) => {
    const first = driver.requestCount();
    if (stream) driver.stream(['Hi', '!'], { prompt: 5, completion: 2 });
    else driver.text('Hi!', { prompt: 5, completion: 2 });
    const client = clientTrace();
    const options = { headers: { traceparent: client.traceparent } };
    const messages = [{ role: 'user' as const, content: 'Hello' }];
    if (stream) await collect(await e2e.client.chat.completions.create({ model: 'chat-model', messages, stream: true }, options));
    else await e2e.client.chat.completions.create({ model: 'chat-model', messages }, options);

    const { clients } = await spansOf(receiver, e2e.gateway.gateway, client.traceId);
    expect(clients).toHaveLength(1);
    expect(driver.requests()[first]?.headers.traceparent).toBe(`00-${client.traceId}-${clients[0]?.spanId}-01`);
  });
});

describe('traceparent sent upstream by the bedrock provider type, beside the signature', () => {
  // Spans go nowhere here: what is checked is the signed request that reached the upstream.
  const fixture = useBedrockE2e({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });

  it('signs the request and sends the traceparent unsigned, streamed or not', async () => {
    const { upstream, e2e } = fixture;
    expect(e2e.gateway.gateway.tracing).not.toBeNull();
    upstream.reply(converseReply([{ text: 'Hi there.' }]));
    upstream.reply({ type: 'events', events: converseTextEvents(['Hel', 'lo'], 'end_turn', { inputTokens: 5, outputTokens: 2 }) });
    const client = clientTrace();
    const options = { headers: { traceparent: client.traceparent } };
    const messages = [{ role: 'user' as const, content: 'Hi' }];
    await e2e.client.chat.completions.create({ model: 'claude-bedrock', messages }, options);
    const { text } = await collect(await e2e.client.chat.completions.create({ model: 'claude-bedrock', messages, stream: true }, options));
    expect(text).toBe('Hello');
    for (const request of upstream.requests) {
      expect(request.headers.traceparent).toMatch(new RegExp(`^00-${client.traceId}-[0-9a-f]{16}-01$`));
      expect(String(request.headers.authorization)).not.toContain('traceparent');
    }
    expect(upstream.requests).toHaveLength(2);
  });
});
