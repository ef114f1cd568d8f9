import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { chatChunk, chatUsageChunk, startMockOpenAiUpstream, type MockOpenAiUpstream, type SseStep } from '../helpers/mock-openai-upstream';
import { modelEntry, PIXEL_PNG_BASE64, rawPost, streamedMessage, upstreamSection, usageFor, useUpstreamE2e } from './helpers';

/**
 * POST /v1/messages to an `openai`-type model, driven by the official @anthropic-ai/sdk: the
 * request translated to a chat request (what the upstream received is asserted), the reply
 * and the stream translated back to Anthropic's format, a tool-use round trip, count_tokens
 * with the gateway's tokenizer.
 */
const UPSTREAM_MODEL = 'gpt-4o-mini-2024-07-18';

const CONFIG = (upstream: MockOpenAiUpstream) => `${upstreamSection()}
providers:
  oai: { type: openai, base_url: ${upstream.baseUrl}, api_key_env: E2E_OPENAI_KEY }
models:
${modelEntry('gpt-mini', 'oai', UPSTREAM_MODEL, 'chat, vision, function_calling, json_mode', 128_000, 'input_per_million: 0.15, output_per_million: 0.6')}
`;

const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function completion(message: Record<string, unknown>, finishReason = 'stop', usage = { prompt_tokens: 11, completion_tokens: 7 }) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_767_225_600,
    model: UPSTREAM_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason, logprobs: null }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => chatChunk(delta, finishReason, UPSTREAM_MODEL);
const usageChunk = (prompt: number, completion: number) => chatUsageChunk({ prompt, completion }, UPSTREAM_MODEL);

describe('e2e: /v1/messages translated for an openai-type upstream', () => {
  const fixture = useUpstreamE2e(startMockOpenAiUpstream, CONFIG, { env: { E2E_OPENAI_KEY: 'sk-upstream-openai-key-0123456789' } });

  it('translates the request (system, images, stop sequences) and the reply', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: completion({ content: 'A red pixel.' }, 'stop', { prompt_tokens: 40, completion_tokens: 4 }) });
    const { data, response } = await fixture.e2e.anthropic.messages
      .create({
        model: 'gpt-mini',
        max_tokens: 100,
        stop_sequences: ['END'],
        system: [{ type: 'text', text: 'You describe images.', cache_control: { type: 'ephemeral' } }],
        metadata: { user_id: 'u-1' },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL_PNG_BASE64 } },
            ],
          },
        ],
      })
      .withResponse();
    expect(data).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'gpt-mini',
      content: [{ type: 'text', text: 'A red pixel.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 4 },
    });
    expect(data.id).toMatch(/^msg_/);
    expect(upstream.requests[0]?.body).toEqual({
      model: UPSTREAM_MODEL,
      max_tokens: 100,
      stop: ['END'],
      messages: [
        { role: 'system', content: 'You describe images.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL_PNG_BASE64}` } },
          ],
        },
      ],
    });
    const usage = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(usage).toMatchObject({ model: 'gpt-mini', promptTokens: 40, completionTokens: 4, estimated: false });
  });

  it('runs a tool-use round trip', async () => {
    const { upstream } = fixture;
    upstream.reply(
      {
        type: 'json',
        body: completion(
          {
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          'tool_calls',
        ),
      },
      { type: 'json', body: completion({ content: 'Sunny in Paris.' }) },
    );
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const first = await fixture.e2e.anthropic.messages.create({
      model: 'gpt-mini',
      max_tokens: 100,
      tools: [WEATHER],
      tool_choice: { type: 'any' },
      messages: [question],
    });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }]);

    const second = await fixture.e2e.anthropic.messages.create({
      model: 'gpt-mini',
      max_tokens: 100,
      tools: [WEATHER],
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '22°C, sunny' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Sunny in Paris.' }]);

    expect(upstream.requests[0]?.body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather', description: WEATHER.description, parameters: WEATHER.input_schema } }],
      tool_choice: 'required',
    });
    expect((upstream.requests[1]?.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '22°C, sunny' },
    ]);
  });

  it('streams text and tool calls as Anthropic events; the SDK assembles them', async () => {
    const { upstream, e2e } = fixture;
    const steps: SseStep[] = [
      { data: chunk({ role: 'assistant', content: '' }) },
      { data: chunk({ content: 'Let me ' }) },
      { data: chunk({ content: 'check.' }) },
      { data: chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '' } }] }) },
      { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }) },
      { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }) },
      { data: chunk({}, 'tool_calls') },
      { data: usageChunk(21, 9) },
    ];
    upstream.reply({ type: 'sse', events: steps });
    const { message, requestId } = await streamedMessage(fixture.e2e, {
      model: 'gpt-mini',
      max_tokens: 100,
      tools: [WEATHER],
      messages: [{ role: 'user', content: 'Oslo?' }],
    });
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 21, output_tokens: 9 });
    expect(upstream.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const usage = await usageFor(e2e, requestId);
    expect(usage).toMatchObject({ promptTokens: 21, completionTokens: 9, stream: true, status: 200 });
  });

  it('sends the events in the documented order', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'sse',
      events: [{ data: chunk({ role: 'assistant', content: 'Hi' }) }, { data: chunk({}, 'length') }, { data: usageChunk(3, 1) }],
    });
    const response = await rawPost(e2e, '/v1/messages?beta=true', {
      model: 'gpt-mini',
      max_tokens: 1,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const names = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('event: '))
      .map((line) => line.slice(7));
    expect(names).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('leaves out what the upstream cannot use: thinking (the model has no reasoning capability), cache_control, context_management, server tools, a role: system message becomes system text', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: completion({ content: 'ok' }) });
    const response = await rawPost(e2e, '/v1/messages', {
      model: 'gpt-mini',
      max_tokens: 50,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      context_management: { edits: [{ type: 'clear_thinking_20251015' }] },
      output_config: { effort: 'high' },
      tools: [{ type: 'web_search_20250305', name: 'web_search' }, WEATHER],
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
      ],
    });
    expect(response.status).toBe(200);
    const sent = upstream.requests[0]?.body as Record<string, unknown>;
    expect(Object.keys(sent).sort()).toEqual(['max_tokens', 'messages', 'model', 'tools']);
    expect(sent.messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'hi' },
    ]);
    expect((sent.tools as unknown[]).length).toBe(1);
  });

  it("counts tokens with the gateway's tokenizer, system and tools included", async () => {
    const { upstream } = fixture;
    const base = { model: 'gpt-mini', messages: [{ role: 'user' as const, content: 'Hello there' }] };
    const plain = await fixture.e2e.anthropic.messages.countTokens(base);
    const withSystem = await fixture.e2e.anthropic.messages.countTokens({ ...base, system: 'You are a helpful assistant.' });
    const withTools = await fixture.e2e.anthropic.messages.countTokens({ ...base, tools: [WEATHER] });
    expect(plain.input_tokens).toBeGreaterThan(0);
    expect(withSystem.input_tokens).toBeGreaterThan(plain.input_tokens);
    expect(withTools.input_tokens).toBeGreaterThan(plain.input_tokens);
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers an upstream failure mid-stream with an error event', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'sse', done: false, events: [{ data: chunk({ role: 'assistant', content: 'Hi' }) }, { drop: true }] });
    const response = await rawPost(e2e, '/v1/messages', {
      model: 'gpt-mini',
      max_tokens: 5,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const text = await response.text();
    expect(text).toContain('event: error');
    expect(text).not.toContain('event: message_stop');
  });
});
