import { describe, expect, it } from 'vitest';
import { startMockGeminiUpstream, type MockGeminiUpstream } from '../helpers/mock-gemini-upstream';
import { COST_HEADER, FEMTO, usdText } from './exact-cost-setup';
import {
  apiErrorOf,
  collect,
  decodeFloat32Base64,
  imageQuestion,
  PIXEL_PNG_BASE64,
  rawPost,
  upstreamSection,
  usageFor,
  useUpstreamE2e,
} from './helpers';

/**
 * The `gemini` provider type end to end, beyond what every type shares (provider-paths.test.ts):
 * the official OpenAI client -> the gateway -> a local Gemini API, and back. Snapshots hold
 * the translated request the upstream received.
 */
const PROVIDER_KEY = 'AIzaSyE2E-GeminiKey-0123456789abcdefghijk';

const CONFIG = (upstream: MockGeminiUpstream) => `${upstreamSection()}
providers:
  google: { type: gemini, base_url: ${upstream.baseUrl}, api_key_env: E2E_GEMINI_KEY }
models:
  - id: flash
    provider: google
    upstream_model: gemini-2.5-flash
    capabilities: [chat, vision, function_calling, json_mode]
    context_window: 1000000
    pricing: { input_per_million: 0.3, output_per_million: 2.5 }
  - id: gem-embed
    provider: google
    upstream_model: text-embedding-004
    capabilities: [embeddings]
    dimensions: [256, 768]
    context_window: 2048
    pricing: { input_per_million: 0.15, output_per_million: 0 }
  - id: gem-embed-fixed
    provider: google
    upstream_model: embedding-001
    capabilities: [embeddings]
    context_window: 2048
    pricing: { input_per_million: 0.15, output_per_million: 0 }
`;

const USAGE = { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 };

function reply(parts: unknown[], finishReason = 'STOP', usageMetadata: unknown = USAGE) {
  return {
    type: 'json' as const,
    body: { candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }], usageMetadata, modelVersion: 'gemini-2.5-flash' },
  };
}

describe('e2e: the gemini provider path', () => {
  const fixture = useUpstreamE2e(startMockGeminiUpstream, CONFIG, { env: { E2E_GEMINI_KEY: PROVIDER_KEY } });

  it('JSON mode, stop sequences and an image part are translated', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(reply([{ text: '{"answer":42}' }]), reply([{ text: 'one, two, ' }]), reply([{ text: 'A pixel.' }]));
    const json = await e2e.client.chat.completions.create({
      model: 'flash',
      messages: [{ role: 'user', content: 'JSON please' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(json.choices[0]?.message.content ?? '')).toEqual({ answer: 42 });
    const stopped = await e2e.client.chat.completions.create({
      model: 'flash',
      messages: [{ role: 'user', content: 'Count' }],
      stop: 'three',
    });
    expect(stopped.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'one, two, ' } });
    const image = await e2e.client.chat.completions.create({
      model: 'flash',
      messages: imageQuestion(),
    });
    expect(image.choices[0]?.message.content).toBe('A pixel.');

    // The key in its header, never in the query string.
    expect(upstream.requests.map((request) => request.headers['x-goog-api-key'])).toEqual([PROVIDER_KEY, PROVIDER_KEY, PROVIDER_KEY]);
    expect(upstream.requests.every((request) => !request.path.includes('key='))).toBe(true);
    const [jsonBody, stopBody, imageBody] = upstream.requests.map((request) => request.body);
    expect(jsonBody).toMatchObject({ generationConfig: { responseMimeType: 'application/json' } });
    expect(stopBody).toMatchObject({ generationConfig: { stopSequences: ['three'] } });
    expect(imageBody).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PIXEL_PNG_BASE64 } }] }],
    });
    expect([jsonBody, stopBody, imageBody]).toMatchSnapshot();
  });

  it('n: as many choices as the candidates Gemini returns for candidateCount, streamed too, all counted and priced', async () => {
    const { upstream, e2e } = fixture;
    const candidates = { type: 'candidates' as const, pieces: ['Hello', ' there '], promptTokenCount: 12 };
    upstream.reply(candidates, candidates);
    const messages = [{ role: 'user' as const, content: 'Greet me' }];
    const { data, response } = await e2e.client.chat.completions.create({ model: 'flash', messages, n: 3 }).withResponse();
    expect(upstream.requests[0]?.body).toMatchObject({ generationConfig: { candidateCount: 3 } });
    expect(data.choices.map((choice) => [choice.index, choice.message.content, choice.finish_reason])).toEqual([
      [0, 'Hello there #0', 'stop'],
      [1, 'Hello there #1', 'stop'],
      [2, 'Hello there #2', 'stop'],
    ]);
    // Gemini's candidatesTokenCount is all candidates' tokens together: 3 candidates of 3.
    expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 });
    const cost = (12n * 3n * FEMTO) / 10n + (9n * 25n * FEMTO) / 10n;
    expect(response.headers.get(COST_HEADER)).toBe(usdText(cost));
    expect(await usageFor(e2e, response.headers.get('x-request-id'))).toMatchObject({
      promptTokens: 12,
      completionTokens: 9,
      costFemtoUsd: cost,
    });

    const stream = await e2e.client.chat.completions.create({
      model: 'flash',
      messages,
      n: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(upstream.requests[1]?.path).toContain(':streamGenerateContent');
    expect(upstream.requests[1]?.body).toMatchObject({ generationConfig: { candidateCount: 2 } });
    const collected = await collect(stream);
    expect(collected.byChoice).toEqual([
      { text: 'Hello there #0', finishReason: 'stop' },
      { text: 'Hello there #1', finishReason: 'stop' },
    ]);
    expect(collected.usageChunks.map((chunk) => chunk.usage)).toEqual([
      {
        prompt_tokens: 12,
        completion_tokens: 6,
        total_tokens: 18,
        cost_usd: Number(usdText((12n * 3n * FEMTO) / 10n + (6n * 25n * FEMTO) / 10n)),
      },
    ]);
  });

  describe('embeddings', () => {
    const vectors = [
      [0.1, -0.2, 0.3],
      [0.5, 0.25, -0.125],
    ];
    const batchReply = { type: 'json' as const, body: { embeddings: vectors.map((values) => ({ values })) } };

    it('answers floats; a batch goes to batchEmbedContents; usage is estimated', async () => {
      const { upstream, e2e } = fixture;
      upstream.reply(batchReply);
      const { data, response } = await e2e.client.embeddings
        .create({ model: 'gem-embed', input: ['first', 'second'], encoding_format: 'float' })
        .withResponse();
      expect(data.model).toBe('gem-embed');
      expect(data.data).toEqual(vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })));
      expect(upstream.requests[0]?.path).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
      expect(upstream.requests[0]?.body).toMatchSnapshot();
      const event = await usageFor(e2e, response.headers.get('x-request-id'));
      // Gemini reports no tokens for embeddings: the gateway counts them.
      expect(event).toMatchObject({ model: 'gem-embed', estimated: true, completionTokens: 0, status: 200 });
      expect(event.promptTokens).toBe(data.usage.prompt_tokens);
    });

    it("answers base64 the client decodes itself (the client's default), and explicit base64 as LE float32", async () => {
      const { upstream, e2e } = fixture;
      upstream.reply(batchReply, { type: 'json', body: { embedding: { values: vectors[0] } } });
      const decoded = await e2e.client.embeddings.create({ model: 'gem-embed', input: ['first', 'second'] });
      expect(decoded.data.map((item) => Array.from(item.embedding))).toEqual(vectors.map((vector) => vector.map(Math.fround)));

      const response = await rawPost(e2e, '/v1/embeddings', { model: 'gem-embed', input: 'first', encoding_format: 'base64' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: { embedding: string }[] };
      expect(upstream.requests[1]?.path).toBe('/v1beta/models/text-embedding-004:embedContent');
      expect(decodeFloat32Base64(body.data[0]!.embedding)).toEqual(vectors[0]!.map(Math.fround));
    });

    it('passes an allowed dimensions value as outputDimensionality', async () => {
      const { upstream, e2e } = fixture;
      upstream.reply({ type: 'json', body: { embedding: { values: [0.6, 0.8] } } });
      const result = await e2e.client.embeddings.create({ model: 'gem-embed', input: 'short', dimensions: 256, encoding_format: 'float' });
      expect(result.data[0]?.embedding).toEqual([0.6, 0.8]);
      expect(upstream.requests[0]?.body).toEqual({ content: { parts: [{ text: 'short' }] }, outputDimensionality: 256 });
    });

    it('refuses dimensions outside the list, and on a model without one, before any upstream call', async () => {
      const { upstream, e2e } = fixture;
      const outside = await apiErrorOf(e2e.client.embeddings.create({ model: 'gem-embed', input: 'x', dimensions: 1536 }));
      expect(outside.status).toBe(400);
      expect(outside.error).toMatchObject({ type: 'invalid_request_error', param: 'dimensions' });
      const none = await apiErrorOf(e2e.client.embeddings.create({ model: 'gem-embed-fixed', input: 'x', dimensions: 256 }));
      expect(none.status).toBe(400);
      expect(none.error).toMatchObject({ type: 'invalid_request_error', param: 'dimensions' });
      expect(upstream.requests).toHaveLength(0);
    });
  });
});
