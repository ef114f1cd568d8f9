import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../helpers/mock-upstream';
import { collect, startE2e, upstreamSection, usageFor, WEATHER_TOOL, type E2e } from './helpers';
import { DRIVERS, type ToolCall, type UpstreamDriver } from './upstream-drivers';

/**
 * Every provider type end to end, one table: the official OpenAI client -> the gateway -> a
 * local upstream speaking the provider's own wire format, and back. What a client sees is the
 * same for every type (the catalogue id, the text, finish reasons, tool calls, usage and its
 * exact cost); what reached the upstream is each format's own (snapshots, one per type). The
 * translations each type does beyond this table are in <type>-path.test.ts.
 */
const UPSTREAM_MODEL = 'chat-upstream-2026';
const MODEL = 'chat-model';

const configYaml = (driver: UpstreamDriver) => `${upstreamSection()}
providers:
  up: { type: ${driver.type}, base_url: ${driver.baseUrl}, api_key_env: E2E_UPSTREAM_KEY }
models:
  - id: ${MODEL}
    provider: up
    upstream_model: ${UPSTREAM_MODEL}
    capabilities: [chat, function_calling]
    context_window: 100000
    pricing: { input_per_million: 1, output_per_million: 2 }
`;

const WEATHER_CALL: ToolCall = { id: 'call_e2e_weather', name: 'get_weather', arguments: '{"city":"Paris"}' };

describe.each(DRIVERS)('e2e: what every provider type shares, on %s', (_name, startDriver) => {
  let driver: UpstreamDriver;
  let e2e: E2e;
  /** The upstream requests of the running test. */
  let firstOfTest = 0;
  const sent = (index: number): RecordedRequest => {
    const request = driver.requests()[firstOfTest + index];
    if (!request) throw new Error(`The upstream received no request ${index} in this test.`);
    return request;
  };

  beforeAll(async () => {
    driver = await startDriver();
    e2e = await startE2e({ configYaml: configYaml(driver), env: { E2E_UPSTREAM_KEY: driver.providerKey } });
  });
  beforeEach(() => {
    firstOfTest = driver.requestCount();
  });
  afterAll(async () => {
    await e2e?.close();
    await driver?.close();
  });

  it('answers a chat completion under the catalogue id, with the upstream usage and its exact cost', async () => {
    driver.text('Hi there.', { prompt: 11, completion: 7 });
    const { data, response } = await e2e.client.chat.completions
      .create({
        model: MODEL,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
        temperature: 0.2,
        max_tokens: 50,
        user: 'u-1',
      })
      .withResponse();
    expect(data.model).toBe(MODEL);
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]).toMatchObject({ index: 0, message: { role: 'assistant', content: 'Hi there.' }, finish_reason: 'stop' });
    expect(data.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    // 11 x 1 + 7 x 2 USD per million tokens.
    expect(response.headers.get('x-gateway-cost-usd')).toBe('0.000025');

    expect(driver.requestCount() - firstOfTest).toBe(1);
    expect(sent(0).path).toBe(driver.chatPath(UPSTREAM_MODEL, false));
    expect(driver.credentialOf(firstOfTest)).toBe(driver.providerKey);
    expect(sent(0).body).toMatchSnapshot();

    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ model: MODEL, provider: 'up', promptTokens: 11, completionTokens: 7, estimated: false, status: 200 });
    expect(event.costFemtoUsd).toBe(25_000_000_000n);
  });

  it('streams with include_usage: deltas, finish_reason, one final usage chunk with the cost', async () => {
    driver.stream(['Hel', 'lo', '!'], { prompt: 13, completion: 4 });
    const stream = await e2e.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const collected = await collect(stream);
    expect(collected.text).toBe('Hello!');
    expect(collected.chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(collected.roles).toEqual(['assistant']);
    expect(collected.finishReasons).toEqual(['stop']);
    expect([...collected.models]).toEqual([MODEL]);
    expect(collected.usageChunks).toHaveLength(1);
    // 13 x 1 + 4 x 2 USD per million tokens.
    expect(collected.usageChunks[0]?.usage).toMatchObject({
      prompt_tokens: 13,
      completion_tokens: 4,
      total_tokens: 17,
      cost_usd: 0.000021,
    });
    expect(collected.chunks.at(-1)?.choices).toEqual([]);
    expect(sent(0).path).toBe(driver.chatPath(UPSTREAM_MODEL, true));
    expect(sent(0).body).toMatchSnapshot();
  });

  it('streams without include_usage: no usage chunk, but the usage event has the upstream tokens', async () => {
    driver.stream(['Hello', '!'], { prompt: 13, completion: 4 });
    const { data: stream, response } = await e2e.client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'Say hello' }], stream: true })
      .withResponse();
    const collected = await collect(stream);
    expect(collected.text).toBe('Hello!');
    expect(collected.usageChunks).toEqual([]);
    expect(collected.chunks.every((chunk) => chunk.usage == null)).toBe(true);
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ model: MODEL, promptTokens: 13, completionTokens: 4, estimated: false, stream: true, status: 200 });
  });

  it('streams an estimated usage chunk when the upstream reports no usage (where the format allows it)', async (context) => {
    if (!driver.streamWithoutUsage) return context.skip();
    driver.streamWithoutUsage(['Hello', '!']);
    const { data: stream, response } = await e2e.client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'Say hello' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const collected = await collect(stream);
    expect(collected.text).toBe('Hello!');
    expect(collected.usageChunks).toHaveLength(1);
    expect(collected.chunks.at(-1)).toBe(collected.usageChunks[0]);
    const usage = collected.usageChunks[0]!.usage!;
    expect(usage.completion_tokens).toBeGreaterThan(0);
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ estimated: true, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens });
  });

  it('round-trips a tool call: the call out to the client, the tool result back to the upstream', async () => {
    driver.toolCall(WEATHER_CALL, { prompt: 30, completion: 12 });
    driver.text('It is 21 °C in Paris.', { prompt: 48, completion: 9 });
    const first = await e2e.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'auto',
    });
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    const message = first.choices[0]!.message;
    expect(message.tool_calls).toEqual([
      { id: WEATHER_CALL.id, type: 'function', function: { name: WEATHER_CALL.name, arguments: WEATHER_CALL.arguments } },
    ]);

    const second = await e2e.client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: message.tool_calls },
        { role: 'tool', tool_call_id: WEATHER_CALL.id, content: '{"temp_c":21}' },
      ],
      tools: [WEATHER_TOOL],
    });
    expect(second.choices[0]?.message.content).toBe('It is 21 °C in Paris.');
    // The call and its result in the upstream's own format: the request the second call sent.
    expect(JSON.stringify(sent(1).body)).toContain('temp_c');
    expect([sent(0).body, sent(1).body]).toMatchSnapshot();
  });

  it('streams a tool call as delta.tool_calls with an index', async () => {
    driver.streamToolCall(WEATHER_CALL, { prompt: 30, completion: 12 });
    const { data: stream, response } = await e2e.client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'Weather?' }], tools: [WEATHER_TOOL], stream: true })
      .withResponse();
    const collected = await collect(stream);
    expect(collected.toolCalls).toEqual([{ id: WEATHER_CALL.id, name: WEATHER_CALL.name, arguments: WEATHER_CALL.arguments }]);
    expect(collected.finishReasons).toEqual(['tool_calls']);
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ promptTokens: 30, completionTokens: 12, estimated: false, stream: true });
  });
});
