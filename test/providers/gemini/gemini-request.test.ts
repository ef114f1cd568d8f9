import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatCompletionRequest } from '../../../contract';
import { GatewayError } from '../../../server/errors/gateway-error';
import { textReply } from './fixtures';
import { API_KEY, callOptions, chatRequest, chatTarget, createHarness, rejectionOf, type Harness } from './harness';

const PNG_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const richRequest: ChatCompletionRequest = {
  model: 'gemini-flash',
  messages: [
    { role: 'system', content: 'You are a travel assistant.' },
    { role: 'developer', content: [{ type: 'text', text: 'Answer briefly.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Where is this, and what is the weather there?' },
        { type: 'image_url', image_url: { url: PNG_DATA_URL } },
        { type: 'image_url', image_url: { url: 'https://example.com/photos/paris.webp?size=large', detail: 'high' } },
        { type: 'image_url', image_url: { url: 'https://example.com/render?id=3' } },
      ],
    },
    {
      role: 'assistant',
      content: 'Paris. Let me check.',
      tool_calls: [
        { id: 'call_weather', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"C"}' } },
        { id: 'call_time', type: 'function', function: { name: 'get_time', arguments: '' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_weather', content: '{"temperature":21,"sky":"clear"}' },
    { role: 'tool', tool_call_id: 'call_time', content: [{ type: 'text', text: 'It is 14:00.' }] },
    { role: 'user', content: 'Thanks! Summarise as JSON.' },
  ],
  temperature: 0.3,
  top_p: 0.9,
  max_tokens: 500,
  max_completion_tokens: 256,
  stop: ['END', '###'],
  n: 1,
  seed: 42,
  presence_penalty: 0.1,
  frequency_penalty: 0.2,
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather in a city.',
        parameters: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['C', 'F'] } },
          required: ['city'],
          additionalProperties: false,
        },
        strict: true,
      },
    },
    { type: 'function', function: { name: 'get_time' } },
  ],
  tool_choice: { type: 'function', function: { name: 'get_weather' } },
  response_format: {
    type: 'json_schema',
    json_schema: { name: 'summary', schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  },
  user: 'user-123',
  stream_options: { include_usage: true },
};

describe('Gemini request translation', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await createHarness();
  });
  afterEach(async () => {
    await harness.close();
  });

  async function sentBody(request: ChatCompletionRequest): Promise<unknown> {
    harness.upstream.reply({ type: 'json', body: textReply('ok') });
    await harness.adapter.chat(request, chatTarget, callOptions());
    return harness.upstream.requests.at(-1)?.body;
  }

  it('translates a rich conversation (snapshot)', async () => {
    harness.upstream.reply({ type: 'json', body: textReply('{"city":"Paris"}') });
    await harness.adapter.chat(richRequest, chatTarget, callOptions());

    const [sent] = harness.upstream.requests;
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent?.headers['x-goog-api-key']).toBe(API_KEY);
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.body).toMatchSnapshot();
  });

  it('maps each tool_choice to functionCallingConfig', async () => {
    const tools: ChatCompletionRequest['tools'] = [{ type: 'function', function: { name: 'f' } }];
    expect(await sentBody(chatRequest({ tools, tool_choice: 'auto' }))).toMatchObject({
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });
    expect(await sentBody(chatRequest({ tools, tool_choice: 'none' }))).toMatchObject({
      toolConfig: { functionCallingConfig: { mode: 'NONE' } },
    });
    expect(await sentBody(chatRequest({ tools, tool_choice: 'required' }))).toMatchObject({
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    });
    expect(await sentBody(chatRequest({ tools }))).not.toHaveProperty('toolConfig');
  });

  it('sends a minimal request without empty sections, and JSON mode as a MIME type', async () => {
    expect(await sentBody(chatRequest())).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] });
    expect(await sentBody(chatRequest({ response_format: { type: 'json_object' }, stop: 'DONE', max_tokens: 9 }))).toMatchObject({
      generationConfig: { responseMimeType: 'application/json', stopSequences: ['DONE'], maxOutputTokens: 9 },
    });
    expect(await sentBody(chatRequest({ response_format: { type: 'text' } }))).not.toHaveProperty('generationConfig');
  });

  it('merges consecutive turns of one role', async () => {
    const body = await sentBody(
      chatRequest({
        messages: [
          { role: 'user', content: 'one' },
          { role: 'user', content: 'two' },
          { role: 'assistant', content: 'three' },
          { role: 'assistant', content: [{ type: 'text', text: 'four' }] },
          { role: 'user', content: 'five' },
        ],
      }),
    );
    expect(body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'one' }, { text: 'two' }] },
        { role: 'model', parts: [{ text: 'three' }, { text: 'four' }] },
        { role: 'user', parts: [{ text: 'five' }] },
      ],
    });
  });

  describe('refuses what Gemini cannot be sent, before calling it', () => {
    const cases: [string, ChatCompletionRequest['messages'], string][] = [
      [
        'tool call arguments that are not JSON',
        [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":' } }] },
        ],
        'messages[1].tool_calls[0].function.arguments',
      ],
      [
        'tool call arguments that are not an object',
        [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
              { id: 'c2', type: 'function', function: { name: 'g', arguments: '[1,2]' } },
            ],
          },
        ],
        'messages[1].tool_calls[1].function.arguments',
      ],
      [
        'a tool result for an unknown call',
        [
          { role: 'user', content: 'hi' },
          { role: 'tool', tool_call_id: 'nope', content: '42' },
        ],
        'messages[1].tool_call_id',
      ],
      [
        'an image data URL that is not base64',
        [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png,%89PNG' } }] }],
        'messages[0].content[0].image_url.url',
      ],
      [
        'an image URL that is not http(s)',
        [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } },
            ],
          },
        ],
        'messages[0].content[1].image_url.url',
      ],
    ];

    it.each(cases)('%s', async (_name, messages, param) => {
      const error = await rejectionOf(harness.adapter.chat(chatRequest({ messages }), chatTarget, callOptions()));
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'invalid_value', param });
      expect(harness.upstream.requests).toHaveLength(0);
    });
  });
});
