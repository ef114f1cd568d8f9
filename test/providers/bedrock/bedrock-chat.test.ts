import { describe, expect, it } from 'vitest';
import { converseReply, MOCK_API_KEY } from '../../helpers/mock-bedrock-upstream';
import { callOptions, chatRequest, chatTarget, novaTarget, useHarness } from './harness';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('bedrock adapter: chat through Converse', () => {
  const harness = useHarness();

  it('posts a signed Converse request for the model in the path and maps the reply', async () => {
    harness.upstream.reply(converseReply([{ text: 'Hi there.' }], 'end_turn', { inputTokens: 12, outputTokens: 3 }));
    const { completion, usage } = await harness.adapter.chat(
      chatRequest({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
        max_tokens: 100,
        temperature: 1.5,
        top_p: 0.9,
        stop: 'END',
      }),
      chatTarget,
      callOptions(),
    );
    const [request] = harness.upstream.requests;
    expect(request?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse');
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/20250615\/us-east-1\/bedrock\/aws4_request/,
    );
    expect(request?.body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Hello' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 100, stopSequences: ['END'], temperature: 1, topP: 0.9 },
    });
    expect(completion).toEqual({
      id: 'chatcmpl-id1',
      object: 'chat.completion',
      created: 1_750_000_000,
      model: 'claude-bedrock',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
    expect(usage).toEqual({ promptTokens: 12, completionTokens: 3 });
  });

  it('sends a Bedrock API key as a bearer token instead of a signature', async () => {
    harness.upstream.reply(converseReply([{ text: 'Hi.' }]));
    await harness.bearer.chat(chatRequest(), novaTarget, callOptions());
    expect(harness.upstream.requests[0]?.headers.authorization).toBe(`Bearer ${MOCK_API_KEY}`);
    expect(harness.upstream.requests[0]?.path).toBe('/model/amazon.nova-pro-v1%3A0/converse');
  });

  it('translates tools, tool calls, tool results and images, and maps the tool_use reply', async () => {
    harness.upstream.reply(
      converseReply(
        [{ text: 'Checking.' }, { toolUse: { toolUseId: 'tooluse_2', name: 'get_weather', input: { city: 'Oslo' } } }],
        'tool_use',
      ),
    );
    const { completion } = await harness.adapter.chat(
      chatRequest({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this and the weather in Paris?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'tooluse_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          { role: 'tool', tool_call_id: 'tooluse_1', content: 'Sunny, 21°C' },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'The weather',
              parameters: { type: 'object', properties: { city: { type: 'string' } } },
            },
          },
        ],
        tool_choice: 'required',
      }),
      chatTarget,
      callOptions(),
    );
    expect(harness.upstream.requests[0]?.body).toMatchSnapshot();
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'tooluse_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('refuses an image given by URL, which Converse cannot fetch, before any call', async () => {
    const request = chatRequest({
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }],
    });
    await expect(harness.adapter.chat(request, chatTarget, callOptions())).rejects.toMatchObject({
      status: 400,
      param: 'messages[0].content[0].image_url.url',
    });
    expect(harness.upstream.requests).toHaveLength(0);
  });

  it('asks Claude for thinking through additionalModelRequestFields and returns the reasoning', async () => {
    harness.upstream.reply(
      converseReply([{ reasoningContent: { reasoningText: { text: 'Two and two.', signature: 'sig' } } }, { text: '4' }], 'end_turn', {
        inputTokens: 20,
        outputTokens: 50,
      }),
    );
    const { completion } = await harness.adapter.chat(chatRequest({ temperature: 0.5 }), chatTarget, {
      ...callOptions(),
      reasoning: { effort: 'low' },
    });
    expect(harness.upstream.requests[0]?.body).toMatchObject({
      inferenceConfig: { maxTokens: 4096 },
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } },
    });
    expect((harness.upstream.requests[0]?.body as { inferenceConfig: object }).inferenceConfig).not.toHaveProperty('temperature');
    expect(completion.choices[0]?.message).toEqual({ role: 'assistant', reasoning_content: 'Two and two.', content: '4' });
  });

  it('counts cache reads and writes as input, kept apart for pricing', async () => {
    harness.upstream.reply(
      converseReply([{ text: 'Cached.' }], 'end_turn', {
        inputTokens: 5,
        outputTokens: 2,
        cacheReadInputTokens: 1000,
        cacheWriteInputTokens: 300,
      }),
    );
    const { completion, usage } = await harness.adapter.chat(chatRequest(), chatTarget, callOptions());
    expect(usage).toEqual({ promptTokens: 1305, completionTokens: 2, cachedTokens: 1000, cacheWriteTokens: 300 });
    expect(completion.usage).toEqual({
      prompt_tokens: 1305,
      completion_tokens: 2,
      total_tokens: 1307,
      prompt_tokens_details: { cached_tokens: 1000 },
    });
  });

  it.each([
    ['max_tokens', 'length'],
    ['stop_sequence', 'stop'],
    ['guardrail_intervened', 'content_filter'],
    ['content_filtered', 'content_filter'],
    ['model_context_window_exceeded', 'length'],
  ])('maps the stop reason %s to %s', async (stopReason, finishReason) => {
    harness.upstream.reply(converseReply([{ text: 'x' }], stopReason));
    const { completion } = await harness.adapter.chat(chatRequest(), novaTarget, callOptions());
    expect(completion.choices[0]?.finish_reason).toBe(finishReason);
  });

  it('answers a reply of another shape as a bad response', async () => {
    harness.upstream.reply({ type: 'json', body: { output: {} } });
    await expect(harness.adapter.chat(chatRequest(), novaTarget, callOptions())).rejects.toMatchObject({ code: 'upstream_bad_response' });
  });
});
