import Anthropic from '@anthropic-ai/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { messageBody, textStream } from '../helpers/mock-anthropic-upstream';
import { startMockVertexUpstream, type MockVertexUpstream } from '../helpers/mock-vertex-upstream';
import { FEMTO, usdText } from './exact-cost-setup';
import {
  apiErrorOf,
  collect,
  imageQuestion,
  PIXEL_PNG_BASE64,
  rawPost,
  upstreamSection,
  usageFor,
  useUpstreamE2e,
  WEATHER_TOOL,
} from './helpers';

/**
 * The `vertex` provider type end to end (docs/vertex.md): the official openai and
 * @anthropic-ai/sdk clients -> the gateway -> a local Vertex AI that checks every call's
 * bearer token, with Gemini (`publisher: google`) and Claude (`publisher: anthropic`) models.
 * The gateway gets its tokens by workload identity federation from the mock's token exchange.
 * Prices are docs/pricing.md's example: input 3, output 15, cache read 0.3, 5-minute write
 * 3.75 USD per million tokens.
 */
const PROJECT = 'mock-project';
const BASE = `/v1/projects/${PROJECT}/locations/us-east5/publishers`;

const CONFIG = (upstream: MockVertexUpstream) => `${upstreamSection()}
providers:
  vertex-gemini:
    type: vertex
    base_url: ${upstream.baseUrl}
    options: { project: ${PROJECT}, region: us-east5, publisher: google, credentials_file: ${upstream.externalAccountFile} }
  vertex-claude:
    type: vertex
    base_url: ${upstream.baseUrl}
    options: { project: ${PROJECT}, region: us-east5, publisher: anthropic, credentials_file: ${upstream.externalAccountFile} }
models:
  - id: flash
    provider: vertex-gemini
    upstream_model: gemini-2.5-flash
    capabilities: [chat, vision, function_calling, json_mode]
    context_window: 1000000
    pricing: { input_per_million: 3, output_per_million: 15, cache_read_per_million: 0.3 }
  - id: embed
    provider: vertex-gemini
    upstream_model: text-embedding-005
    capabilities: [embeddings]
    dimensions: [256, 768]
    context_window: 2048
    pricing: { input_per_million: 0.025, output_per_million: 0 }
  - id: sonnet
    provider: vertex-claude
    upstream_model: claude-sonnet-4@20250514
    capabilities: [chat, vision, function_calling, json_mode]
    context_window: 200000
    max_output_tokens: 8192
    pricing: { input_per_million: 3, output_per_million: 15, cache_read_per_million: 0.3, cache_write_per_million: 3.75 }
`;

const GEMINI_USAGE = {
  promptTokenCount: 800,
  cachedContentTokenCount: 500,
  candidatesTokenCount: 40,
  thoughtsTokenCount: 60,
  totalTokenCount: 900,
};
/** 300 uncached and 500 cached input tokens, 100 output tokens (thinking included). */
const GEMINI_COST = 300n * 3n * FEMTO + (500n * 3n * FEMTO) / 10n + 100n * 15n * FEMTO;

function geminiReply(parts: unknown[], finishReason = 'STOP') {
  return {
    type: 'json' as const,
    body: {
      candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
      usageMetadata: GEMINI_USAGE,
      modelVersion: 'gemini-2.5-flash',
    },
  };
}

const CLAUDE_USAGE = { input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 400, cache_creation_input_tokens: 200 };
const CLAUDE_COST = 100n * 3n * FEMTO + (400n * 3n * FEMTO) / 10n + (200n * 375n * FEMTO) / 100n + 50n * 15n * FEMTO;

describe('e2e: the vertex provider path', () => {
  const fixture = useUpstreamE2e(startMockVertexUpstream, CONFIG);
  let anthropic: Anthropic;
  beforeAll(() => {
    anthropic = new Anthropic({ apiKey: fixture.e2e.apiKey, baseURL: fixture.e2e.gateway.baseUrl, maxRetries: 0 });
  });

  it('chat onto Gemini on Vertex: the publisher path, a bearer token, cached tokens priced exactly', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(geminiReply([{ text: 'Hi there.' }]));
    const { data, response } = await e2e.client.chat.completions
      .create({ model: 'flash', messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Hi there.');
    expect(data.model).toBe('flash');
    expect(data.usage).toMatchObject({ prompt_tokens: 800, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 500 } });
    expect(response.headers.get('x-gateway-cost-usd')).toBe(usdText(GEMINI_COST));
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(`${BASE}/google/models/gemini-2.5-flash:generateContent`);
    expect(sent?.headers.authorization).toMatch(/^Bearer ya29\.mock-/);
    expect(upstream.issued.every((entry) => entry.grant === 'token-exchange')).toBe(true);
    const usage = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(usage).toMatchObject({ model: 'flash', promptTokens: 800, completionTokens: 100, cachedTokens: 500, costFemtoUsd: GEMINI_COST });
  });

  it('streams Gemini on Vertex with usage, and sends tools and images', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'sse',
      events: [
        {
          candidates: [
            { content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] }, index: 0 },
          ],
        },
        { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP', index: 0 }], usageMetadata: GEMINI_USAGE },
      ],
    });
    const stream = await e2e.client.chat.completions.create({
      model: 'flash',
      messages: imageQuestion('Weather here?'),
      tools: [WEATHER_TOOL],
      stream: true,
      stream_options: { include_usage: true },
    });
    const collected = await collect(stream);
    expect(collected.toolCalls).toEqual([{ id: expect.any(String), name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(collected.finishReasons).toEqual(['tool_calls']);
    expect(collected.usageChunks[0]?.usage).toMatchObject({ prompt_tokens: 800, completion_tokens: 100 });
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(`${BASE}/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`);
    expect(sent?.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Weather here?' }, { inlineData: { mimeType: 'image/png', data: PIXEL_PNG_BASE64 } }] }],
      tools: [{ functionDeclarations: [{ name: 'get_weather' }] }],
    });
  });

  it('embeddings through predict, with the token counts Vertex reports', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'json',
      body: {
        predictions: [
          { embeddings: { values: [0.5, -0.25], statistics: { truncated: false, token_count: 3 } } },
          { embeddings: { values: [0.125, 1], statistics: { truncated: false, token_count: 5 } } },
        ],
      },
    });
    const { data, response } = await e2e.client.embeddings
      .create({ model: 'embed', input: ['one two', 'three four five'], dimensions: 256, encoding_format: 'float' })
      .withResponse();
    expect(data.data.map((item) => item.embedding)).toEqual([
      [0.5, -0.25],
      [0.125, 1],
    ]);
    expect(data.usage).toEqual({ prompt_tokens: 8, total_tokens: 8 });
    expect(upstream.requests[0]?.path).toBe(`${BASE}/google/models/text-embedding-005:predict`);
    const usage = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(usage).toMatchObject({ model: 'embed', promptTokens: 8, estimated: false, costFemtoUsd: (8n * 25n * FEMTO) / 1000n });
  });

  it('chat onto Claude on Vertex: rawPredict, cache reads and writes priced exactly', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Bonjour.' }], 'end_turn', CLAUDE_USAGE) });
    const { data, response } = await e2e.client.chat.completions
      .create({ model: 'sonnet', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 100 })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Bonjour.');
    expect(response.headers.get('x-gateway-cost-usd')).toBe(usdText(CLAUDE_COST));
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(`${BASE}/anthropic/models/claude-sonnet-4@20250514:rawPredict`);
    expect(sent?.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 100 });
    expect(sent?.body).not.toHaveProperty('model');
  });

  it('/v1/messages with the Anthropic SDK passes through to Claude on Vertex, beta header carried, metered exactly', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi.' }], 'end_turn', CLAUDE_USAGE) });
    const body = {
      model: 'sonnet',
      max_tokens: 64,
      system: [{ type: 'text' as const, text: 'Be brief.', cache_control: { type: 'ephemeral' as const } }],
      messages: [{ role: 'user' as const, content: 'Hello' }],
    };
    const { data, response } = await anthropic.messages
      .create(body, { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } })
      .withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'Hi.' }]);
    const [sent] = upstream.requests;
    expect(sent?.path).toBe(`${BASE}/anthropic/models/claude-sonnet-4@20250514:rawPredict`);
    const { model: _model, ...rest } = body;
    expect(sent?.body).toEqual({ ...rest, anthropic_version: 'vertex-2023-10-16' });
    expect(sent?.headers['anthropic-beta']).toBe('context-1m-2025-08-07');
    const usage = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(usage).toMatchObject({ model: 'sonnet', promptTokens: 700, completionTokens: 50, cachedTokens: 400, costFemtoUsd: CLAUDE_COST });
  });

  it('/v1/messages streams through streamRawPredict; the SDK assembles the message', async () => {
    const { upstream } = fixture;
    upstream.reply({ type: 'sse', events: textStream(['Hel', 'lo!']), slices: [9] });
    const message = await anthropic.messages
      .stream({ model: 'sonnet', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'Hello!' }]);
    expect(upstream.requests[0]?.path).toBe(`${BASE}/anthropic/models/claude-sonnet-4@20250514:streamRawPredict`);
  });

  it('/v1/messages/count_tokens asks the count-tokens resource', async () => {
    const { upstream } = fixture;
    upstream.reply({ type: 'json', body: { input_tokens: 17 } });
    const count = await anthropic.messages.countTokens({ model: 'sonnet', messages: [{ role: 'user', content: 'Hi' }] });
    expect(count.input_tokens).toBe(17);
    expect(upstream.requests[0]?.path).toBe(`${BASE}/anthropic/models/count-tokens:rawPredict`);
    expect(upstream.requests[0]?.body).toMatchObject({ model: 'claude-sonnet-4@20250514' });
  });

  it('/v1/messages onto Gemini on Vertex is translated', async () => {
    const { upstream } = fixture;
    upstream.reply(geminiReply([{ text: 'Translated.' }]));
    const message = await anthropic.messages.create({ model: 'flash', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Translated.' }]);
    expect(message.usage).toMatchObject({ input_tokens: 300, cache_read_input_tokens: 500, output_tokens: 100 });
    expect(upstream.requests[0]?.path).toBe(`${BASE}/google/models/gemini-2.5-flash:generateContent`);
  });

  it('/v1/responses onto Claude on Vertex is translated', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'From Claude.' }], 'end_turn', CLAUDE_USAGE) });
    const response = await e2e.client.responses.create({ model: 'sonnet', input: 'Hi', max_output_tokens: 64 });
    expect(response.output_text).toBe('From Claude.');
    expect(response.usage).toMatchObject({ input_tokens: 700, output_tokens: 50, input_tokens_details: { cached_tokens: 400 } });
    expect(upstream.requests[0]?.path).toBe(`${BASE}/anthropic/models/claude-sonnet-4@20250514:rawPredict`);
  });

  it('n onto Gemini on Vertex: candidateCount candidates as choices, streamed too, all counted and priced; Claude refuses n', async () => {
    const { upstream, e2e } = fixture;
    const candidates = { type: 'candidates' as const, pieces: ['Hi', ' again '], promptTokenCount: 20 };
    upstream.reply(candidates, candidates);
    const messages = [{ role: 'user' as const, content: 'Greet me' }];
    const { data, response } = await e2e.client.chat.completions.create({ model: 'flash', messages, n: 2 }).withResponse();
    expect(upstream.requests[0]?.path).toBe(`${BASE}/google/models/gemini-2.5-flash:generateContent`);
    expect(upstream.requests[0]?.body).toMatchObject({ generationConfig: { candidateCount: 2 } });
    expect(data.choices.map((choice) => [choice.index, choice.message.content])).toEqual([
      [0, 'Hi again #0'],
      [1, 'Hi again #1'],
    ]);
    // 2 candidates of 3 tokens, counted together by Vertex's candidatesTokenCount.
    expect(data.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 6 });
    const cost = 20n * 3n * FEMTO + 6n * 15n * FEMTO;
    expect(response.headers.get('x-gateway-cost-usd')).toBe(usdText(cost));
    expect(await usageFor(e2e, response.headers.get('x-request-id'))).toMatchObject({ completionTokens: 6, costFemtoUsd: cost });

    const stream = await e2e.client.chat.completions.create({
      model: 'flash',
      messages,
      n: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    const collected = await collect(stream);
    expect(upstream.requests[1]?.path).toBe(`${BASE}/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`);
    expect(collected.byChoice.map((choice) => choice.text)).toEqual(['Hi again #0', 'Hi again #1', 'Hi again #2']);
    expect(collected.byChoice.every((choice) => choice.finishReason === 'stop')).toBe(true);
    expect(collected.usageChunks[0]?.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 9 });

    const refused = await apiErrorOf(e2e.client.chat.completions.create({ model: 'sonnet', messages, n: 2 }));
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param: 'n' });
    expect(upstream.requests).toHaveLength(2);
  });

  it("errors come in each route's shape", async () => {
    const { upstream, e2e } = fixture;
    const invalid = { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } };
    upstream.reply({ type: 'json', status: 400, body: invalid });
    const chatError = await apiErrorOf(e2e.client.chat.completions.create({ model: 'flash', messages: [{ role: 'user', content: 'x' }] }));
    expect(chatError.status).toBe(400);
    expect(chatError.error).toMatchObject({ type: 'invalid_request_error', code: 'upstream_rejected' });
    expect((chatError.error as { message: string }).message).toContain('Request contains an invalid argument.');

    upstream.reply({ type: 'json', status: 429, body: { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' } } });
    upstream.reply({ type: 'json', status: 429, body: { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' } } });
    const response = await rawPost(e2e, '/v1/messages', { model: 'sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    expect(response.status).toBe(502);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ type: 'error', error: { type: expect.any(String), message: expect.stringContaining('unavailable') } });
    expect(JSON.stringify(body)).not.toContain('ya29.');
  });

  it("one token per provider serves all of that provider's requests", () => {
    const { upstream } = fixture;
    expect(upstream.issued.length).toBe(2);
    expect(upstream.refused).toEqual([]);
  });
});
