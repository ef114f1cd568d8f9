import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../server/errors/gateway-error';
import { functionCallReply, promptBlockedReply, textReply, usage } from './fixtures';
import { callOptions, chatRequest, chatTarget, NOW, rejectionOf, useHarness } from './harness';

describe('Gemini chat (non-streaming) reply mapping', () => {
  const harness = useHarness();

  async function chatWith(reply: unknown) {
    harness.upstream.reply({ type: 'json', body: reply });
    return harness.adapter.chat(chatRequest(), chatTarget, callOptions());
  }

  it('maps a text reply, counting thinking tokens as completion tokens', async () => {
    const result = await chatWith(textReply('Bonjour !'));
    expect(result.usage).toEqual({ promptTokens: 12, completionTokens: 37, reasoningTokens: 30 });
    expect(result.completion).toEqual({
      id: expect.stringMatching(/^chatcmpl-id\d+$/),
      object: 'chat.completion',
      created: Math.floor(NOW / 1000),
      model: 'gemini-flash',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Bonjour !' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 37, total_tokens: 49, completion_tokens_details: { reasoning_tokens: 30 } },
    });
  });

  it('joins text parts and leaves out thought summaries', async () => {
    const result = await chatWith({
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'Let me think…', thought: true }, { text: 'Hello, ' }, { text: 'world.' }] },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: usage,
    });
    expect(result.completion.choices[0]?.message.content).toBe('Hello, world.');
  });

  it('maps function calls to tool_calls with generated ids', async () => {
    const result = await chatWith(functionCallReply);
    const [choice] = result.completion.choices;
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message).toEqual({
      role: 'assistant',
      content: 'Checking both.',
      tool_calls: [
        {
          id: expect.stringMatching(/^call_id\d+$/),
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"C"}' },
        },
        { id: expect.stringMatching(/^call_id\d+$/), type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ],
    });
    const ids = choice?.message.tool_calls?.map((call) => call.id);
    expect(new Set(ids).size).toBe(2);
    expect(result.usage).toEqual({ promptTokens: 40, completionTokens: 22 });
  });

  it('keeps the id Gemini gives a function call, and content null without text', async () => {
    const result = await chatWith({
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { id: 'fc-7', name: 'ping' } }] }, finishReason: 'STOP' }],
    });
    expect(result.completion.choices[0]?.message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'fc-7', type: 'function', function: { name: 'ping', arguments: '{}' } }],
    });
  });

  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['IMAGE_SAFETY', 'content_filter'],
    ['OTHER', 'stop'],
    ['LANGUAGE', 'stop'],
    ['MALFORMED_FUNCTION_CALL', 'stop'],
    ['FINISH_REASON_UNSPECIFIED', 'stop'],
    ['SOMETHING_NEW', 'stop'],
  ])('maps finishReason %s to %s', async (reason, expected) => {
    const result = await chatWith(textReply('x', reason));
    expect(result.completion.choices[0]?.finish_reason).toBe(expected);
  });

  it('maps MAX_TOKENS to length even with a function call', async () => {
    const reply = structuredClone(functionCallReply);
    const candidate = reply.candidates[0];
    if (candidate) candidate.finishReason = 'MAX_TOKENS';
    const result = await chatWith(reply);
    expect(result.completion.choices[0]?.finish_reason).toBe('length');
  });

  it('answers a blocked prompt with one empty content_filter choice', async () => {
    const result = await chatWith(promptBlockedReply);
    expect(result.completion.choices).toEqual([{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' }]);
    expect(result.usage).toEqual({ promptTokens: 9, completionTokens: 0 });
  });

  it('maps several candidates to several choices (n)', async () => {
    harness.upstream.reply({
      type: 'json',
      body: {
        candidates: [
          { content: { role: 'model', parts: [{ text: 'A' }] }, finishReason: 'STOP', index: 0 },
          { content: { role: 'model', parts: [{ text: 'B' }] }, finishReason: 'MAX_TOKENS', index: 1 },
        ],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
      },
    });
    const result = await harness.adapter.chat(chatRequest({ n: 2 }), chatTarget, callOptions());
    expect(harness.upstream.requests[0]?.body).toMatchObject({ generationConfig: { candidateCount: 2 } });
    expect(result.completion.choices.map((choice) => [choice.index, choice.message.content, choice.finish_reason])).toEqual([
      [0, 'A', 'stop'],
      [1, 'B', 'length'],
    ]);
  });

  it('reports null usage when Gemini sends none', async () => {
    const result = await chatWith({ candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP' }] });
    expect(result.usage).toBeNull();
    expect(result.completion.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  it('treats a reply with neither candidates nor a block reason as a bad response', async () => {
    const error = await rejectionOf(chatWith({ usageMetadata: usage }));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'bad_response', status: 502, code: 'upstream_bad_response', retryable: true });
  });
});
