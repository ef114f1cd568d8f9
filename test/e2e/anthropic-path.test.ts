import { describe, expect, it } from 'vitest';
import {
  events,
  MOCK_MODEL,
  messageBody,
  startMockAnthropicUpstream,
  textStream,
  type MockAnthropicUpstream,
} from '../helpers/mock-anthropic-upstream';
import { apiErrorOf, collect, PIXEL_DATA_URL, PIXEL_PNG_BASE64, upstreamSection, usageFor, WEATHER_TOOL, useUpstreamE2e } from './helpers';

/**
 * The `anthropic` provider type end to end: the official OpenAI client -> the gateway -> a
 * local Messages API, and back. Snapshots hold the translated request the upstream received.
 */
const PROVIDER_KEY = 'sk-ant-api03-E2eAnthropicKey-0123456789abcdefghijklmnop';

const CONFIG = (upstream: MockAnthropicUpstream) => `${upstreamSection()}
providers:
  claude: { type: anthropic, base_url: ${upstream.baseUrl}, api_key_env: E2E_ANTHROPIC_KEY }
models:
  - id: haiku
    provider: claude
    upstream_model: ${MOCK_MODEL}
    capabilities: [chat, vision, function_calling, json_mode]
    context_window: 200000
    max_output_tokens: 8192
    pricing: { input_per_million: 0.8, output_per_million: 4 }
`;

describe('e2e: the anthropic provider path', () => {
  const fixture = useUpstreamE2e(startMockAnthropicUpstream, CONFIG, { env: { E2E_ANTHROPIC_KEY: PROVIDER_KEY } });

  const upstreamBodies = () => fixture.upstream.requests.map((request) => request.body);

  it('answers a chat completion under the catalogue id, with the upstream usage', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'json',
      body: messageBody([{ type: 'text', text: 'Hi there.' }], 'end_turn', { input_tokens: 21, output_tokens: 6 }),
    });
    const { data, response } = await e2e.client.chat.completions
      .create({
        model: 'haiku',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
        temperature: 1.5,
        top_p: 0.9,
        user: 'u-1',
      })
      .withResponse();
    expect(data.model).toBe('haiku');
    expect(data.choices).toEqual([{ index: 0, message: { role: 'assistant', content: 'Hi there.' }, finish_reason: 'stop' }]);
    expect(data.usage).toEqual({ prompt_tokens: 21, completion_tokens: 6, total_tokens: 27, prompt_tokens_details: { cached_tokens: 0 } });

    const [request] = upstream.requests;
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe(PROVIDER_KEY);
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toMatchSnapshot();

    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({
      model: 'haiku',
      provider: 'claude',
      promptTokens: 21,
      completionTokens: 6,
      estimated: false,
      status: 200,
    });
  });

  it('streams with include_usage: deltas, finish_reason, one final usage chunk', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'sse',
      events: textStream(['Hel', 'lo', '!'], 'end_turn', { input_tokens: 25, output_tokens: 15 }),
      slices: [7],
    });
    const stream = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const collected = await collect(stream);
    expect(collected.text).toBe('Hello!');
    expect(collected.chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(collected.roles).toEqual(['assistant']);
    expect(collected.finishReasons).toEqual(['stop']);
    expect([...collected.models]).toEqual(['haiku']);
    expect(collected.usageChunks.map((chunk) => chunk.usage)).toEqual([
      // 25 x 0.8 + 15 x 4 USD per million tokens.
      { prompt_tokens: 25, completion_tokens: 15, total_tokens: 40, prompt_tokens_details: { cached_tokens: 0 }, cost_usd: 0.00008 },
    ]);
    expect(collected.chunks.at(-1)?.choices).toEqual([]);
    expect(upstream.requests[0]?.headers.accept).toBe('text/event-stream');
    expect(upstream.requests[0]?.body).toMatchSnapshot();
  });

  it('streams without include_usage: no usage chunk, but the usage event has the upstream tokens', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'sse', events: textStream(['Hello', '!'], 'end_turn', { input_tokens: 25, output_tokens: 15 }) });
    const { data: stream, response } = await e2e.client.chat.completions
      .create({ model: 'haiku', messages: [{ role: 'user', content: 'Say hello' }], stream: true })
      .withResponse();
    const collected = await collect(stream);
    expect(collected.text).toBe('Hello!');
    expect(collected.usageChunks).toEqual([]);
    expect(collected.chunks.every((chunk) => chunk.usage == null)).toBe(true);
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ model: 'haiku', promptTokens: 25, completionTokens: 15, estimated: false, stream: true, status: 200 });
  });

  it('round-trips a tool call: tool_use out, tool_result back to the upstream', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(
      {
        type: 'json',
        body: messageBody(
          [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_01E2e', name: 'get_weather', input: { city: 'Paris' } },
          ],
          'tool_use',
        ),
      },
      { type: 'json', body: messageBody([{ type: 'text', text: 'It is 21 °C in Paris.' }], 'end_turn') },
    );
    const first = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    const message = first.choices[0]!.message;
    expect(message.content).toBe('Let me check.');
    expect(message.tool_calls).toEqual([
      { id: 'toolu_01E2e', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);

    const second = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: message.content, tool_calls: message.tool_calls },
        { role: 'tool', tool_call_id: 'toolu_01E2e', content: '{"temp_c":21}' },
      ],
      tools: [WEATHER_TOOL],
    });
    expect(second.choices[0]?.message.content).toBe('It is 21 °C in Paris.');
    expect(upstream.requests[1]?.body).toMatchObject({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_01E2e', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01E2e', content: '{"temp_c":21}' }] },
      ],
    });
    expect(upstreamBodies()).toMatchSnapshot();
  });

  it('streams a tool call as delta.tool_calls with an index', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'sse',
      events: [
        events.messageStart(30),
        events.toolStart(0, 'toolu_01Stream', 'get_weather'),
        events.jsonDelta(0, '{"city":'),
        events.jsonDelta(0, '"Paris"}'),
        events.blockStop(0),
        events.messageDelta('tool_use', 12),
        events.messageStop(),
      ],
    });
    const stream = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [WEATHER_TOOL],
      stream: true,
    });
    const collected = await collect(stream);
    expect(collected.toolCalls).toEqual([{ id: 'toolu_01Stream', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(collected.finishReasons).toEqual(['tool_calls']);
  });

  it('JSON mode: system instruction and "{" prefill out, the whole object back', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: '"answer":42}' }], 'end_turn') });
    const completion = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [{ role: 'user', content: 'Answer in JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ answer: 42 });
    expect(upstream.requests[0]?.body).toMatchObject({
      messages: [{ role: 'user' }, { role: 'assistant', content: [{ type: 'text', text: '{' }] }],
    });
    expect(upstream.requests[0]?.body).toMatchSnapshot();
  });

  it('stop sequences become stop_sequences; stopping on one is finish_reason stop', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'json',
      body: { ...messageBody([{ type: 'text', text: 'one, two, ' }], 'stop_sequence'), stop_sequence: 'three' },
    });
    const completion = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [{ role: 'user', content: 'Count' }],
      stop: ['three', 'END'],
      max_tokens: 20,
    });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'one, two, ' } });
    expect(upstream.requests[0]?.body).toMatchObject({ stop_sequences: ['three', 'END'], max_tokens: 20 });
  });

  it('a data URL image part becomes a base64 image block', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'A pixel.' }], 'end_turn') });
    const completion = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: PIXEL_DATA_URL } },
          ],
        },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('A pixel.');
    expect(upstream.requests[0]?.body).toMatchObject({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL_PNG_BASE64 } },
          ],
        },
      ],
    });
  });

  it('a length stop is finish_reason length', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Once upon' }], 'max_tokens') });
    const completion = await e2e.client.chat.completions.create({
      model: 'haiku',
      messages: [{ role: 'user', content: 'Tell a story' }],
      max_completion_tokens: 2,
    });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(upstream.requests[0]?.body).toMatchObject({ max_tokens: 2 });
  });

  it('refuses n > 1 with 400 param n, without calling the upstream', async () => {
    const { upstream, e2e } = fixture;
    const error = await apiErrorOf(
      e2e.client.chat.completions.create({ model: 'haiku', messages: [{ role: 'user', content: 'Hi' }], n: 2 }),
    );
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'n' });
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses embeddings on the chat model', async () => {
    const { upstream, e2e } = fixture;
    const response = await fetch(`${e2e.gateway.baseUrl}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e2e.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'haiku', input: 'x' }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'model' } });
    expect(upstream.requests).toHaveLength(0);
  });
});
