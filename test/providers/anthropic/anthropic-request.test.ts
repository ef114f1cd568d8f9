import { describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../../../contract';
import { GatewayError } from '../../../server/errors/gateway-error';
import { buildAnthropicRequest } from '../../../server/providers/anthropic/build-anthropic-request';
import type { ModelTarget } from '../../../server/providers/types';
import { MOCK_MODEL, messageBody } from '../../helpers/mock-anthropic-upstream';
import { TEST_API_KEY, TEST_TARGET, callOptions, useAnthropicTestProvider } from './harness';

const richRequest: ChatCompletionRequest = {
  model: 'claude-haiku',
  messages: [
    { role: 'system', content: 'You are a travel assistant.' },
    { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Where are these pictures from, and what is the weather there?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==' } },
        { type: 'image_url', image_url: { url: 'https://example.com/paris.jpg', detail: 'high' } },
      ],
    },
    {
      role: 'assistant',
      content: 'Both are from Paris. Let me check the weather.',
      tool_calls: [
        { id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } },
        { id: 'toolu_01B', type: 'function', function: { name: 'get_time', arguments: '' } },
      ],
    },
    { role: 'tool', tool_call_id: 'toolu_01A', content: '18°C, cloudy' },
    { role: 'tool', tool_call_id: 'toolu_01B', content: [{ type: 'text', text: '14:05' }] },
    { role: 'user', content: 'Thanks! Summarise it.' },
  ],
  max_tokens: 300,
  stop: ['\n\nHuman:', 'END'],
  temperature: 1.4,
  top_p: 0.9,
  user: 'user-7f3a',
  presence_penalty: 0.5,
  frequency_penalty: 0.2,
  seed: 42,
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather of a city',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } },
          required: ['city'],
        },
      },
    },
    { type: 'function', function: { name: 'get_time' } },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: false,
  response_format: {
    type: 'json_schema',
    json_schema: {
      name: 'weather_summary',
      description: 'What the user asked for',
      schema: { type: 'object', properties: { city: { type: 'string' }, summary: { type: 'string' } }, required: ['city', 'summary'] },
    },
  },
};

describe('Anthropic adapter: the upstream request', () => {
  const { upstream, client } = useAnthropicTestProvider();

  it('translates a rich conversation (snapshot) and sends the documented headers', async () => {
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: '"city": "Paris", "summary": "18°C"}' }], 'end_turn') });
    await client.provider.chat(richRequest, TEST_TARGET, callOptions());

    const recorded = upstream.requests.at(-1);
    expect(recorded?.method).toBe('POST');
    expect(recorded?.path).toBe('/v1/messages');
    expect(recorded?.headers['x-api-key']).toBe(TEST_API_KEY);
    expect(recorded?.headers['anthropic-version']).toBe('2023-06-01');
    expect(recorded?.headers['content-type']).toBe('application/json');
    expect(recorded?.body).toMatchSnapshot();
  });

  it('sends `stream: true` for streamed requests', async () => {
    upstream.reply({ type: 'sse', events: [] });
    const stream = await client.provider.chatStream(
      { model: 'claude-haiku', messages: [{ role: 'user', content: 'Hi' }] },
      TEST_TARGET,
      callOptions(),
    );
    await expect(drain(stream.chunks)).rejects.toThrow();
    expect(upstream.requests.at(-1)?.body).toEqual({
      model: MOCK_MODEL,
      max_tokens: 1024,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stream: true,
    });
  });
});

describe('buildAnthropicRequest', () => {
  const target: ModelTarget = TEST_TARGET;
  const user = (content: string): ChatCompletionRequest['messages'][number] => ({ role: 'user', content });
  const base = (extra: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest => ({
    model: 'claude-haiku',
    messages: [user('Hi')],
    ...extra,
  });

  it('takes max_tokens from max_completion_tokens, then max_tokens, then the model default', () => {
    expect(buildAnthropicRequest(base({ max_completion_tokens: 7, max_tokens: 9 }), target, false).body.max_tokens).toBe(7);
    expect(buildAnthropicRequest(base({ max_tokens: 9 }), target, false).body.max_tokens).toBe(9);
    expect(buildAnthropicRequest(base(), target, false).body.max_tokens).toBe(1024);
  });

  it('turns a single stop string into stop_sequences and keeps temperatures within 0–1', () => {
    const { body } = buildAnthropicRequest(base({ stop: 'END', temperature: 2 }), target, false);
    expect(body.stop_sequences).toEqual(['END']);
    expect(body.temperature).toBe(1);
    expect(buildAnthropicRequest(base({ temperature: 0.3 }), target, false).body.temperature).toBe(0.3);
  });

  it('maps every tool_choice', () => {
    const tools: ChatCompletionRequest['tools'] = [{ type: 'function', function: { name: 'f' } }];
    const choice = (extra: Partial<ChatCompletionRequest>) =>
      buildAnthropicRequest(base({ tools, ...extra }), target, false).body.tool_choice;
    expect(choice({})).toBeUndefined();
    expect(choice({ tool_choice: 'auto' })).toEqual({ type: 'auto' });
    expect(choice({ tool_choice: 'required' })).toEqual({ type: 'any' });
    expect(choice({ tool_choice: 'none' })).toEqual({ type: 'none' });
    expect(choice({ tool_choice: { type: 'function', function: { name: 'f' } } })).toEqual({ type: 'tool', name: 'f' });
    expect(choice({ parallel_tool_calls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice({ tool_choice: 'required', parallel_tool_calls: false })).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(buildAnthropicRequest(base({ tools, tool_choice: 'none' }), target, false).body.tools).toEqual([
      { name: 'f', input_schema: { type: 'object' } },
    ]);
    // tool_choice without tools means nothing to Anthropic.
    expect(buildAnthropicRequest(base({ tool_choice: 'required' }), target, false).body.tool_choice).toBeUndefined();
  });

  it('merges consecutive turns of one role and puts tool results before text', () => {
    const { body } = buildAnthropicRequest(
      base({
        messages: [
          user('one'),
          user('two'),
          { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          user('before the result'),
          { role: 'tool', tool_call_id: 't1', content: 'result' },
        ],
      }),
      target,
      false,
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'result' },
          { type: 'text', text: 'before the result' },
        ],
      },
    ]);
  });

  it('does not invent a user turn before a leading assistant turn, and drops empty text', () => {
    const { body } = buildAnthropicRequest(
      base({ messages: [{ role: 'assistant', content: 'Hello!' }, user(''), user('Hi')] }),
      target,
      false,
    );
    expect(body.messages).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
    ]);
  });

  it('refuses n > 1 with param n', () => {
    expect(() => buildAnthropicRequest(base({ n: 2 }), target, false)).toThrow(
      expect.objectContaining({ status: 400, type: 'invalid_request_error', code: 'invalid_value', param: 'n' }),
    );
    expect(buildAnthropicRequest(base({ n: 1 }), target, false).body).not.toHaveProperty('n');
  });

  it('refuses tool-call arguments that are not a JSON object, naming the field', () => {
    for (const args of ['{"city": "Par', '[1, 2]']) {
      const request = base({
        messages: [
          user('Hi'),
          { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: args } }] },
        ],
      });
      let caught: unknown;
      try {
        buildAnthropicRequest(request, target, false);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(GatewayError);
      expect(caught).toMatchObject({ status: 400, type: 'invalid_request_error', param: 'messages[1].tool_calls[0].function.arguments' });
    }
  });

  it('refuses images Anthropic cannot take', () => {
    const image = (url: string): ChatCompletionRequest =>
      base({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] });
    expect(() => buildAnthropicRequest(image('data:image/bmp;base64,Qk0='), target, false)).toThrow(
      expect.objectContaining({ status: 400, param: 'messages[0].content[0].image_url.url' }),
    );
    expect(() => buildAnthropicRequest(image('data:image/png,raw'), target, false)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => buildAnthropicRequest(image('ftp://example.com/a.png'), target, false)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('JSON mode: instruction in the system prompt and a `{` prefill', () => {
    const built = buildAnthropicRequest(
      base({ messages: [{ role: 'system', content: 'Be brief.' }, user('Hi')], response_format: { type: 'json_object' } }),
      target,
      false,
    );
    expect(built.prefill).toBe('{');
    expect(built.body.system).toMatch(/^Be brief\.\n\nRespond with a single valid JSON object/);
    expect(built.body.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: '{' }] });
  });

  it('JSON mode: no prefill where the API refuses it or it would clash', () => {
    const json = { response_format: { type: 'json_object' } } as const;
    for (const upstreamModel of [
      'claude-opus-4-6',
      'claude-sonnet-4-6',
      'claude-opus-4-7',
      'claude-sonnet-5',
      'claude-mythos-preview',
      'some-alias',
    ]) {
      const built = buildAnthropicRequest(base(json), { ...target, upstreamModel }, false);
      expect(built.prefill, upstreamModel).toBeNull();
      expect(built.body.messages.at(-1)?.role).toBe('user');
      expect(built.body.system).toContain('JSON');
    }
    for (const upstreamModel of [
      'claude-3-5-haiku-20241022',
      'claude-3-opus-20240229',
      'claude-2.1',
      'claude-sonnet-4-20250514',
      'claude-opus-4-1-20250805',
      'claude-haiku-4-5-20251001',
    ]) {
      expect(buildAnthropicRequest(base(json), { ...target, upstreamModel }, false).prefill, upstreamModel).toBe('{');
    }
    // The caller's own prefill, and a forced tool call.
    expect(
      buildAnthropicRequest(base({ ...json, messages: [user('Hi'), { role: 'assistant', content: '[' }] }), target, false).prefill,
    ).toBeNull();
    const tools: ChatCompletionRequest['tools'] = [{ type: 'function', function: { name: 'f' } }];
    expect(buildAnthropicRequest(base({ ...json, tools, tool_choice: 'required' }), target, false).prefill).toBeNull();
  });
});

async function drain(chunks: AsyncIterable<unknown>): Promise<void> {
  for await (const chunk of chunks) void chunk;
}
