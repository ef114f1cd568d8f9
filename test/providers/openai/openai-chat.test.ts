import { describe, expect, it } from 'vitest';
import { chatCompletionBody, toolCallCompletionBody, UPSTREAM_CREATED, UPSTREAM_ID } from '../../fixtures/openai/openai-bodies';
import { chatRequest, chatTarget, FIXED_NOW, useHarness } from './harness';

describe('openai adapter: chat', () => {
  const harness = useHarness();

  it('sends the client fields through, with the upstream model name and the bearer key', async () => {
    harness.upstream.reply({ type: 'json', body: chatCompletionBody() });
    await harness.adapter.chat(
      chatRequest({
        temperature: 0.2,
        max_tokens: 50,
        stop: ['\n\n'],
        top_p: null,
        tools: null,
        stream: false,
        seed: 7,
        // Not in the contract: passed through for the upstream.
        logprobs: true,
        top_logprobs: 2,
      }),
      chatTarget,
      harness.options(),
    );
    const [request] = harness.upstream.requests;
    expect({
      method: request?.method,
      path: request?.path,
      authorization: request?.headers.authorization,
      accept: request?.headers.accept,
      contentType: request?.headers['content-type'],
    }).toMatchInlineSnapshot(`
        {
          "accept": "application/json",
          "authorization": "Bearer sk-proj-T3stK3yN0tR3al0123456789abcdefXYZ",
          "contentType": "application/json",
          "method": "POST",
          "path": "/v1/chat/completions",
        }
      `);
    expect(request?.body).toMatchInlineSnapshot(`
      {
        "logprobs": true,
        "max_tokens": 50,
        "messages": [
          {
            "content": "Say hello",
            "role": "user",
          },
        ],
        "model": "gpt-4o-mini",
        "seed": 7,
        "stop": [
          "

      ",
        ],
        "temperature": 0.2,
        "top_logprobs": 2,
      }
    `);
  });

  it('sends no authorization header when the provider has no key (Ollama, vLLM)', async () => {
    harness.upstream.reply({ type: 'json', body: chatCompletionBody() });
    await harness.keyless.chat(chatRequest(), chatTarget, harness.options());
    expect(harness.upstream.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('maps the reply: catalogue model id, usage, finish reason', async () => {
    harness.upstream.reply({ type: 'json', body: chatCompletionBody() });
    const result = await harness.adapter.chat(chatRequest(), chatTarget, harness.options());
    expect(result.usage).toEqual({ promptTokens: 19, completionTokens: 10, cachedTokens: 0, reasoningTokens: 0 });
    expect(result.completion).toEqual({
      id: UPSTREAM_ID,
      object: 'chat.completion',
      created: UPSTREAM_CREATED,
      model: 'gpt-catalogue',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hello! How can I assist you today?' }, finish_reason: 'stop', logprobs: null },
      ],
      usage: {
        prompt_tokens: 19,
        completion_tokens: 10,
        total_tokens: 29,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
      system_fingerprint: 'fp_06737a9306',
    });
  });

  it('maps tool calls', async () => {
    harness.upstream.reply({ type: 'json', body: toolCallCompletionBody() });
    const { completion } = await harness.adapter.chat(chatRequest(), chatTarget, harness.options());
    expect(completion.choices[0]).toMatchObject({
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_abc123', type: 'function', function: { name: 'get_current_weather', arguments: '{\n"location": "Boston, MA"\n}' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('fills what compatible servers leave out and maps their finish reasons', async () => {
    harness.upstream.reply({
      type: 'json',
      body: {
        model: 'llama3',
        choices: [
          {
            message: {
              content: [
                { type: 'thinking', thinking: 'hm' },
                { type: 'text', text: 'Hi' },
              ],
            },
            finish_reason: 'eos',
          },
          {
            index: 1,
            message: { role: 'assistant', content: 'Cut', tool_calls: [{ function: { name: 'f', arguments: { a: 1 } } }] },
            finish_reason: 'model_length',
          },
        ],
      },
    });
    const result = await harness.adapter.chat(chatRequest(), chatTarget, harness.options());
    expect(result.usage).toBeNull();
    expect(result.completion).toEqual({
      id: 'chatcmpl-id1',
      object: 'chat.completion',
      created: Math.floor(FIXED_NOW / 1000),
      model: 'gpt-catalogue',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' },
        {
          index: 1,
          message: {
            role: 'assistant',
            content: 'Cut',
            tool_calls: [{ id: 'call_id2', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
          finish_reason: 'length',
        },
      ],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    });
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['function_call', 'tool_calls'],
    ['insufficient_system_resource', 'length'],
    ['eos_token', 'stop'],
    ['something_new', 'stop'],
  ])('maps finish_reason %s to %s', async (upstream, expected) => {
    const body = chatCompletionBody();
    (body.choices as { finish_reason: string }[])[0]!.finish_reason = upstream;
    harness.upstream.reply({ type: 'json', body });
    const { completion } = await harness.adapter.chat(chatRequest(), chatTarget, harness.options());
    expect(completion.choices[0]?.finish_reason).toBe(expected);
  });
});
