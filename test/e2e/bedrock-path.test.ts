import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicChunks,
  converseEnd,
  converseReply,
  converseTextEvents,
  errorReply,
  MOCK_ACCESS_KEY_ID,
  MOCK_API_KEY,
  MOCK_SECRET_ACCESS_KEY,
  startMockBedrockUpstream,
  type MockBedrockUpstream,
} from '../helpers/mock-bedrock-upstream';
import { apiErrorOf, collect, PIXEL_DATA_URL, rawPost, upstreamSection, usageFor, useUpstreamE2e, WEATHER_TOOL } from './helpers';

/**
 * The `bedrock` provider type end to end: the official OpenAI and Anthropic clients -> the
 * gateway -> a local Bedrock that verifies every Signature V4 signature. The credentials come
 * from AWS's default chain as in production: the environment for `aws`, a profile of the
 * shared credentials file (with a wrong secret) for `aws-wrong`, a Bedrock API key for `aws-key`.
 */
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const WRONG_SECRET = 'WrongSecretWrongSecretWrongSecret0123456';

const CONFIG = (upstream: MockBedrockUpstream) => `${upstreamSection()}
providers:
  aws: { type: bedrock, base_url: ${upstream.baseUrl}, options: { region: us-east-1 } }
  aws-key: { type: bedrock, base_url: ${upstream.baseUrl}, api_key_env: E2E_BEDROCK_API_KEY, options: { region: us-east-1 } }
  aws-wrong: { type: bedrock, base_url: ${upstream.baseUrl}, options: { region: us-east-1, profile: wrong } }
models:
  - id: claude-bedrock
    provider: aws
    upstream_model: ${CLAUDE}
    capabilities: [chat, vision, function_calling, json_mode]
    context_window: 200000
    max_output_tokens: 8192
    pricing: { input_per_million: 3, output_per_million: 15, cache_read_per_million: 0.3, cache_write_per_million: 3.75 }
  - id: nova
    provider: aws-key
    upstream_model: amazon.nova-pro-v1:0
    capabilities: [chat]
    context_window: 300000
    pricing: { input_per_million: 0.8, output_per_million: 3.2 }
  - id: claude-wrong
    provider: aws-wrong
    upstream_model: ${CLAUDE}
    capabilities: [chat]
    context_window: 200000
    pricing: { input_per_million: 3, output_per_million: 15 }
  - id: titan-embed
    provider: aws
    upstream_model: amazon.titan-embed-text-v2:0
    capabilities: [embeddings]
    dimensions: [256, 512, 1024]
    context_window: 8192
    pricing: { input_per_million: 0.02, output_per_million: 0 }
  - id: cohere-embed
    provider: aws
    upstream_model: cohere.embed-english-v3
    capabilities: [embeddings]
    context_window: 512
    pricing: { input_per_million: 0.1, output_per_million: 0 }
`;

const AWS_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_EC2_METADATA_DISABLED',
];

describe('e2e: the bedrock provider path', () => {
  // AWS's default chain reads the process environment and files, as in production.
  const saved = new Map(AWS_VARIABLES.map((name) => [name, process.env[name]]));
  const directory = mkdtempSync(join(tmpdir(), 'bedrock-e2e-'));
  beforeAll(() => {
    writeFileSync(
      join(directory, 'credentials'),
      `[wrong]\naws_access_key_id = ${MOCK_ACCESS_KEY_ID}\naws_secret_access_key = ${WRONG_SECRET}\n`,
    );
    for (const name of AWS_VARIABLES) delete process.env[name];
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: MOCK_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: MOCK_SECRET_ACCESS_KEY,
      AWS_SHARED_CREDENTIALS_FILE: join(directory, 'credentials'),
      AWS_CONFIG_FILE: join(directory, 'config'),
      AWS_EC2_METADATA_DISABLED: 'true',
    });
  });
  afterAll(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(directory, { recursive: true, force: true });
  });
  const fixture = useUpstreamE2e(() => startMockBedrockUpstream(), CONFIG, { env: { E2E_BEDROCK_API_KEY: MOCK_API_KEY } });

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
    // 100 x 3 + 50 x 15 + 400 x 0.3 + 300 x 3.75 = 2,295 USD per million tokens.
    expect(response.headers.get('x-gateway-cost-usd')).toBe('0.002295');
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({
      model: 'claude-bedrock',
      provider: 'aws',
      promptTokens: 800,
      completionTokens: 50,
      cachedTokens: 400,
      cacheWriteTokens: 300,
    });
    expect(event.costFemtoUsd).toBe(2_295_000_000_000n);
  });

  it('streams a reply from event-stream framing, with the usage chunk', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'events',
      events: converseTextEvents(['Hel', 'lo', '!'], 'end_turn', { inputTokens: 9, outputTokens: 3 }),
      slices: [5, 11],
    });
    const stream = await e2e.client.chat.completions.create({
      model: 'claude-bedrock',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, usageChunks } = await collect(stream);
    expect(text).toBe('Hello!');
    expect(usageChunks[0]?.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 });
    expect(upstream.requests[0]?.path).toMatch(/\/converse-stream$/);
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
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather where this was taken?' },
            { type: 'image_url', image_url: { url: PIXEL_DATA_URL } },
          ],
        },
      ],
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

  describe('/v1/messages', () => {
    let client: Anthropic;
    beforeAll(() => {
      client = new Anthropic({ apiKey: fixture.e2e.apiKey, baseURL: fixture.e2e.gateway.baseUrl, maxRetries: 0 });
    });
    const message = (usage: Record<string, number>) => ({
      id: 'msg_bdrk_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: 'Hi from Bedrock.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage,
    });

    it('passes a Claude request through InvokeModel with Anthropic’s body: version in the body, model in the path, betas carried', async () => {
      const { upstream, e2e } = fixture;
      upstream.reply({
        type: 'json',
        body: message({ input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 400, cache_creation_input_tokens: 300 }),
      });
      const { data, response } = await client.messages
        .create(
          {
            model: 'claude-bedrock',
            max_tokens: 64,
            system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
            messages: [{ role: 'user', content: 'Hello' }],
          },
          { headers: { 'anthropic-beta': 'context-1m-2025-08-07, interleaved-thinking-2025-05-14' } },
        )
        .withResponse();
      expect(data.content).toEqual([{ type: 'text', text: 'Hi from Bedrock.' }]);
      const [request] = upstream.requests;
      expect(request?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
      expect(request?.body).toEqual({
        max_tokens: 64,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'Hello' }],
        anthropic_version: 'bedrock-2023-05-31',
        anthropic_beta: ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'],
      });
      const event = await usageFor(e2e, response.headers.get('x-request-id'));
      expect(event).toMatchObject({
        model: 'claude-bedrock',
        promptTokens: 800,
        completionTokens: 50,
        cachedTokens: 400,
        cacheWriteTokens: 300,
      });
      expect(event.costFemtoUsd).toBe(2_295_000_000_000n);
    });

    it('streams InvokeModelWithResponseStream chunks back as Anthropic events', async () => {
      const { upstream, e2e } = fixture;
      upstream.reply({
        type: 'events',
        slices: [7, 50],
        events: anthropicChunks([
          { type: 'message_start', message: { ...message({ input_tokens: 12, output_tokens: 1 }), content: [], stop_reason: null } },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi from ' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Bedrock.' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 6 } },
          {
            type: 'message_stop',
            'amazon-bedrock-invocationMetrics': { inputTokenCount: 12, outputTokenCount: 6, invocationLatency: 300, firstByteLatency: 90 },
          },
        ]),
      });
      const stream = client.messages.stream({ model: 'claude-bedrock', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] });
      const final = await stream.finalMessage();
      expect(final.content).toEqual([{ type: 'text', text: 'Hi from Bedrock.' }]);
      expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 6 });
      expect(upstream.requests[0]?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
      expect(upstream.requests[0]?.body).not.toHaveProperty('stream');
      const requestId = (await stream.withResponse()).response.headers.get('x-request-id');
      expect(await usageFor(e2e, requestId)).toMatchObject({ promptTokens: 12, completionTokens: 6, stream: true, status: 200 });
    });

    it('translates a Messages request for a model that is not Claude to Converse', async () => {
      const { upstream } = fixture;
      upstream.reply(converseReply([{ text: 'Nova answers.' }], 'end_turn', { inputTokens: 7, outputTokens: 2 }));
      const reply = await client.messages.create({ model: 'nova', max_tokens: 32, messages: [{ role: 'user', content: 'Hello' }] });
      expect(reply.content).toEqual([{ type: 'text', text: 'Nova answers.' }]);
      expect(reply.usage).toMatchObject({ input_tokens: 7, output_tokens: 2 });
      expect(upstream.requests[0]?.path).toBe('/model/amazon.nova-pro-v1%3A0/converse');
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
