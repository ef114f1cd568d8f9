import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../../../contract';
import { messageBody } from '../../helpers/mock-anthropic-upstream';
import { TEST_TARGET, callOptions, useAnthropicTestProvider } from './harness';

const hello: ChatCompletionRequest = { model: 'claude-haiku', messages: [{ role: 'user', content: 'Hello' }] };

describe('Anthropic adapter: non-streamed replies', () => {
  const { upstream, client } = useAnthropicTestProvider();

  it('maps a text reply, with the catalogue id, the fixed clock and a chatcmpl- id', async () => {
    upstream.reply({
      type: 'json',
      body: messageBody(
        [
          { type: 'text', text: 'Hello! ' },
          { type: 'text', text: 'How can I help?' },
        ],
        'end_turn',
        { input_tokens: 12, output_tokens: 8 },
      ),
    });
    const result = await client.provider.chat(hello, TEST_TARGET, callOptions());
    expect(result.completion).toEqual({
      id: expect.stringMatching(/^chatcmpl-test\d+$/),
      object: 'chat.completion',
      created: 1_767_225_600,
      model: 'claude-haiku',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help?' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20, prompt_tokens_details: { cached_tokens: 0 } },
    });
    expect(result.usage).toEqual({ promptTokens: 12, completionTokens: 8, cachedTokens: 0 });
  });

  it('maps tool_use blocks to tool_calls, content null when there is no text', async () => {
    upstream.reply({
      type: 'json',
      body: messageBody(
        [
          { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris', days: [1, 2] } },
          { type: 'tool_use', id: 'toolu_01B', name: 'get_time', input: {} },
        ],
        'tool_use',
      ),
    });
    const { completion } = await client.provider.chat(hello, TEST_TARGET, callOptions());
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":[1,2]}' } },
          { id: 'toolu_01B', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('keeps text beside tool calls and skips blocks it does not translate', async () => {
    upstream.reply({
      type: 'json',
      body: messageBody(
        [
          { type: 'thinking', thinking: 'The user wants weather.', signature: 'sig' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
        ],
        'tool_use',
      ),
    });
    const { completion } = await client.provider.chat(hello, TEST_TARGET, callOptions());
    expect(completion.choices[0]?.message.content).toBe('Checking.');
    expect(completion.choices[0]?.message.tool_calls).toHaveLength(1);
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['some_future_reason', 'stop'],
    [null, 'stop'],
  ])('maps stop_reason %s to finish_reason %s', async (stopReason, finishReason) => {
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'x' }], stopReason) });
    const { completion } = await client.provider.chat(hello, TEST_TARGET, callOptions());
    expect(completion.choices[0]?.finish_reason).toBe(finishReason);
  });

  it('counts cache writes and reads as prompt tokens', async () => {
    upstream.reply({
      type: 'json',
      body: messageBody([{ type: 'text', text: 'x' }], 'end_turn', {
        input_tokens: 10,
        cache_creation_input_tokens: 1000,
        cache_read_input_tokens: 200,
        output_tokens: 3,
      }),
    });
    const result = await client.provider.chat(hello, TEST_TARGET, callOptions());
    expect(result.usage).toEqual({
      promptTokens: 1210,
      completionTokens: 3,
      cachedTokens: 200,
      cacheWriteTokens: 1000,
      cacheWrite1hTokens: 0,
    });
    expect(result.completion.usage).toEqual({
      prompt_tokens: 1210,
      completion_tokens: 3,
      total_tokens: 1213,
      prompt_tokens_details: { cached_tokens: 200 },
    });
  });

  it('reports no usage when the provider sends none', async () => {
    const body = messageBody([{ type: 'text', text: 'x' }], 'end_turn');
    delete body.usage;
    upstream.reply({ type: 'json', body });
    const result = await client.provider.chat(hello, TEST_TARGET, callOptions());
    expect(result.usage).toBeNull();
  });

  it('puts the JSON-mode prefill back in front of the reply', async () => {
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: '"answer": 42}' }], 'end_turn') });
    const { completion } = await client.provider.chat({ ...hello, response_format: { type: 'json_object' } }, TEST_TARGET, callOptions());
    expect(completion.choices[0]?.message.content).toBe('{"answer": 42}');
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ answer: 42 });
  });

  it('leaves the reply alone when no prefill was sent (models from 4.6 on)', async () => {
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: '{"answer": 42}' }], 'end_turn') });
    const { completion } = await client.provider.chat(
      { ...hello, response_format: { type: 'json_object' } },
      { ...TEST_TARGET, upstreamModel: 'claude-sonnet-4-6' },
      callOptions(),
    );
    expect(completion.choices[0]?.message.content).toBe('{"answer": 42}');
  });
});
