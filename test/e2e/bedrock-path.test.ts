import { describe, expect, it } from 'vitest';
import { converseEnd, converseReply, converseTextEvents, errorReply, MOCK_API_KEY } from '../helpers/mock-bedrock-upstream';
import { CACHED_CLAUDE_EVENT, useBedrockE2e, WRONG_SECRET } from './bedrock-setup';
import { apiErrorOf, collect, imageQuestion, PIXEL_DATA_URL, rawPost, usageFor, WEATHER_TOOL } from './helpers';

/**
 * The `bedrock` provider type end to end with the official OpenAI client: chat, streams, tools
 * and images, embeddings, errors and /v1/responses onto a local Bedrock that verifies every
 * Signature V4 signature (bedrock-setup.ts); /v1/messages: bedrock-messages.test.ts.
 */
describe('e2e: the bedrock provider path', () => {
  const fixture = useBedrockE2e();

  it('answers a chat completion signed with the environment credentials, with the cache tokens priced exactly', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(
      converseReply([{ text: 'Hi there.' }], 'end_turn', {
        inputTokens: 100,
        outputTokens: 50,
        cacheReadInputTokens: 400,
        cacheWriteInputTokens: 300,
      }),
    );
    const { data, response } = await e2e.client.chat.completions
      .create({
        model: 'claude-bedrock',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Hi there.');
    expect(data.model).toBe('claude-bedrock');
    expect(data.usage).toMatchObject({ prompt_tokens: 800, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 400 } });
    const [request] = upstream.requests;
    expect(request?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse');
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=/,
    );
    // CACHED_CLAUDE_EVENT's cost, in USD.
    expect(response.headers.get('x-gateway-cost-usd')).toBe('0.002295');
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ ...CACHED_CLAUDE_EVENT, provider: 'aws' });
  });

  it('streams a reply from event-stream framing, with the usage chunk and the cache tokens priced exactly', async () => {
    const { upstream, e2e } = fixture;
    const usage = { inputTokens: 100, outputTokens: 50, cacheReadInputTokens: 400, cacheWriteInputTokens: 300 };
    upstream.reply({ type: 'events', events: converseTextEvents(['Hel', 'lo', '!'], 'end_turn', usage), slices: [5, 11] });
    const { data: stream, response } = await e2e.client.chat.completions
      .create({
        model: 'claude-bedrock',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const { text, usageChunks } = await collect(stream);
    expect(text).toBe('Hello!');
    expect(usageChunks[0]?.usage).toMatchObject({
      prompt_tokens: 800,
      completion_tokens: 50,
      prompt_tokens_details: { cached_tokens: 400 },
    });
    expect(upstream.requests[0]?.path).toMatch(/\/converse-stream$/);
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ stream: true, promptTokens: 800, completionTokens: 50, cachedTokens: 400, cacheWriteTokens: 300 });
    expect(event.costFemtoUsd).toBe(2_295_000_000_000n);
  });

  it('carries tools and images both ways', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'events',
      events: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        {
          event: 'contentBlockStart',
          payload: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather' } } },
        },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":"Oslo"}' } } } },
        { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
        ...converseEnd('tool_use', { inputTokens: 20, outputTokens: 8 }),
      ],
    });
    const stream = await e2e.client.chat.completions.create({
      model: 'claude-bedrock',
      messages: imageQuestion('Weather where this was taken?'),
      tools: [WEATHER_TOOL],
      stream: true,
    });
    const { toolCalls, finishReasons } = await collect(stream);
    expect(toolCalls).toEqual([{ id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
    expect(finishReasons).toEqual(['tool_calls']);
    expect(upstream.requests[0]?.body).toMatchObject({
      messages: [
        {
          role: 'user',
          content: [
            { text: 'Weather where this was taken?' },
            { image: { format: 'png', source: { bytes: PIXEL_DATA_URL.split(',')[1] } } },
          ],
        },
      ],
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: WEATHER_TOOL.function.parameters } } }] },
    });
  });

  it('sends the Bedrock API key of a provider that has one as a bearer token', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(converseReply([{ text: 'Nova here.' }]));
    const completion = await e2e.client.chat.completions.create({ model: 'nova', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]?.message.content).toBe('Nova here.');
    expect(upstream.requests[0]?.headers.authorization).toBe(`Bearer ${MOCK_API_KEY}`);
  });

  it('embeds with Titan and with Cohere', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: { embedding: [0.25, 0.5], inputTextTokenCount: 2 } });
    const titan = await e2e.client.embeddings.create({ model: 'titan-embed', input: 'hello', dimensions: 256, encoding_format: 'float' });
    expect(titan.data[0]?.embedding).toEqual([0.25, 0.5]);
    expect(titan.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    upstream.reply({
      type: 'json',
      body: {
        embeddings: [
          [1, 2],
          [3, 4],
        ],
      },
      headers: { 'x-amzn-bedrock-input-token-count': '6' },
    });
    const cohere = await e2e.client.embeddings.create({ model: 'cohere-embed', input: ['a', 'b'], encoding_format: 'float' });
    expect(cohere.data.map((item) => item.embedding)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(cohere.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
    expect(upstream.requests.map((request) => request.path)).toEqual([
      '/model/amazon.titan-embed-text-v2%3A0/invoke',
      '/model/cohere.embed-english-v3/invoke',
    ]);
  });

  it('is refused by the signature check with the wrong secret of a profile: 502, the secret nowhere', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(converseReply([{ text: 'never sent' }]));
    const error = await apiErrorOf(
      e2e.client.chat.completions.create({ model: 'claude-wrong', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(error.status).toBe(502);
    expect(error.error).toMatchObject({
      code: 'upstream_unavailable',
      message: 'The provider "aws-wrong" refused the gateway\'s credentials.',
    });
    expect(JSON.stringify(error.error)).not.toContain(WRONG_SECRET.slice(0, 12));
    expect(upstream.requests).toHaveLength(1);
    upstream.requests.length = 0;
    // The scripted reply is still there: the refusal came before any answer.
    await e2e.client.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('retries a ThrottlingException and answers 502 once retries are spent; a ValidationException is the caller’s 400', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(
      errorReply('ThrottlingException', 'Too many requests.', 429),
      errorReply('ThrottlingException', 'Too many requests.', 429),
    );
    const throttled = await apiErrorOf(
      e2e.client.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(throttled.status).toBe(502);
    expect(upstream.requests).toHaveLength(2);
    upstream.reply(errorReply('ValidationException', 'messages: text content blocks must be non-empty', 400));
    const invalid = await apiErrorOf(
      e2e.client.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(invalid.status).toBe(400);
    expect(invalid.error).toMatchObject({
      code: 'upstream_rejected',
      message: expect.stringContaining('text content blocks must be non-empty (ValidationException)'),
    });
  });

  it('translates /v1/responses to Converse', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(converseReply([{ text: 'Responded.' }]));
    const response = await rawPost(e2e, '/v1/responses', { model: 'claude-bedrock', input: 'Hello' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { output_text?: string; output: { content: { text: string }[] }[] };
    expect(body.output[0]?.content[0]?.text).toBe('Responded.');
    expect(upstream.requests[0]?.path).toMatch(/\/converse$/);
  });
});
