import { describe, expect, it } from 'vitest';
import { chatStreamReply, startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import {
  apiErrorOf,
  collect,
  decodeFloat32Base64,
  imageQuestion,
  modelEntry,
  rawPost,
  upstreamSection,
  usageFor,
  useUpstreamE2e,
} from './helpers';

/**
 * The `openai` provider type end to end, beyond what every type shares (provider-paths.test.ts):
 * the official client -> the gateway -> a local OpenAI-compatible upstream, and back.
 * Snapshots hold the request the upstream received.
 */
const PROVIDER_KEY = 'sk-proj-E2eOpenAiKey-0123456789abcdefghijklmnopqrstuv';
const UPSTREAM_CHAT = 'gpt-4o-mini-2024-07-18';

function configYaml(upstream: MockOpenAiUpstream): string {
  return `${upstreamSection()}
providers:
  oai: { type: openai, base_url: ${upstream.baseUrl}, api_key_env: E2E_OPENAI_KEY }
models:
${modelEntry('gpt-chat', 'oai', UPSTREAM_CHAT, 'chat, vision, function_calling, json_mode', 128_000, 'input_per_million: 0.15, output_per_million: 0.6')}
  - id: gpt-embed
    provider: oai
    upstream_model: text-embedding-3-small
    capabilities: [embeddings]
    dimensions: [256, 1536]
    context_window: 8191
    pricing: { input_per_million: 0.02, output_per_million: 0 }
${modelEntry('ada-embed', 'oai', 'text-embedding-ada-002', 'embeddings', 8_191, 'input_per_million: 0.1, output_per_million: 0')}
`;
}

type Message = { role: 'assistant'; content: string | null; tool_calls?: unknown[] };

function completion(message: Message, finishReason = 'stop', usage = { prompt_tokens: 11, completion_tokens: 7 }) {
  return {
    id: 'chatcmpl-upstream-1',
    object: 'chat.completion',
    created: 1_767_225_600,
    model: UPSTREAM_CHAT,
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    system_fingerprint: 'fp_e2e',
  };
}

describe('e2e: the openai provider path', () => {
  const fixture = useUpstreamE2e(startMockOpenAiUpstream, configYaml, { env: { E2E_OPENAI_KEY: PROVIDER_KEY } });

  const lastUpstreamBody = () => fixture.upstream.requests.at(-1)?.body;

  it('asks the upstream for usage on a stream the client asked none for, to bill it exactly', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(chatStreamReply(['Hel', 'lo!'], { prompt: 13, completion: 4 }, UPSTREAM_CHAT));
    const { data: stream, response } = await e2e.client.chat.completions
      .create({ model: 'gpt-chat', messages: [{ role: 'user', content: 'Say hello' }], stream: true })
      .withResponse();
    expect((await collect(stream)).usageChunks).toEqual([]);
    expect(lastUpstreamBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ model: 'gpt-chat', promptTokens: 13, completionTokens: 4, estimated: false, stream: true, status: 200 });
  });

  it('passes JSON mode, stop sequences and image parts through', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply(
      { type: 'json', body: completion({ role: 'assistant', content: '{"answer":42}' }) },
      { type: 'json', body: completion({ role: 'assistant', content: 'one, two' }) },
      { type: 'json', body: completion({ role: 'assistant', content: 'A red pixel.' }) },
    );
    const json = await e2e.client.chat.completions.create({
      model: 'gpt-chat',
      messages: [{ role: 'user', content: 'Answer in JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(json.choices[0]?.message.content ?? '')).toEqual({ answer: 42 });

    const stopped = await e2e.client.chat.completions.create({
      model: 'gpt-chat',
      messages: [{ role: 'user', content: 'Count' }],
      stop: ['three', '\n\n'],
    });
    expect(stopped.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'one, two' } });

    const image = await e2e.client.chat.completions.create({
      model: 'gpt-chat',
      messages: imageQuestion('What is this?', 'low'),
    });
    expect(image.choices[0]?.message.content).toBe('A red pixel.');
    expect(upstream.requests.map((request) => request.body)).toMatchSnapshot();
  });

  describe('embeddings', () => {
    const vectors = [
      [0.1, -0.2, 0.3, 0.7],
      [0.5, 0.25, -0.125, 1e-8],
    ];
    const embeddingsReply = (data = vectors) => ({
      type: 'json' as const,
      body: {
        object: 'list',
        data: data.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        model: 'text-embedding-3-small',
        usage: { prompt_tokens: 6, total_tokens: 6 },
      },
    });

    it('answers floats, asking the upstream for floats', async () => {
      const { upstream, e2e } = fixture;
      upstream.reply(embeddingsReply());
      const { data, response } = await e2e.client.embeddings
        .create({ model: 'gpt-embed', input: ['first', 'second'], encoding_format: 'float' })
        .withResponse();
      expect(data).toEqual({
        object: 'list',
        model: 'gpt-embed',
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        usage: { prompt_tokens: 6, total_tokens: 6 },
      });
      expect(upstream.requests[0]?.path).toBe('/v1/embeddings');
      expect(upstream.requests[0]?.body).toMatchSnapshot();
      const event = await usageFor(e2e, response.headers.get('x-request-id'));
      expect(event).toMatchObject({ model: 'gpt-embed', promptTokens: 6, completionTokens: 0, status: 200 });
    });

    it("answers base64 the client decodes itself (the client's default)", async () => {
      const { upstream, e2e } = fixture;
      upstream.reply(embeddingsReply());
      const result = await e2e.client.embeddings.create({ model: 'gpt-embed', input: ['first', 'second'] });
      expect(result.data.map((item) => Array.from(item.embedding))).toEqual(vectors.map((vector) => vector.map(Math.fround)));
      // The SDK asks for base64, and so is the upstream; this one answers floats anyway, which the gateway encodes.
      expect(upstream.requests[0]?.body).toMatchObject({ encoding_format: 'base64' });
    });

    it("passes an upstream's base64 vectors on as they came, and re-encodes a malformed one", async () => {
      const { upstream, e2e } = fixture;
      const [first, second] = vectors.map((vector) => Buffer.from(new Float32Array(vector).buffer).toString('base64'));
      // The second without its padding: decoded (leniently, as before) and encoded canonically.
      upstream.reply({
        ...embeddingsReply(),
        body: {
          ...embeddingsReply().body,
          data: [
            { object: 'embedding', index: 0, embedding: first },
            { object: 'embedding', index: 1, embedding: second!.replace(/=+$/, '') },
          ],
        },
      });
      const response = await rawPost(e2e, '/v1/embeddings', { model: 'gpt-embed', input: ['first', 'second'], encoding_format: 'base64' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: { index: number; embedding: string }[] };
      expect(body.data.map((item) => item.embedding)).toEqual([first, second]);
      expect(upstream.requests[0]?.body).toMatchObject({ encoding_format: 'base64' });
    });

    it('answers explicit base64 as little-endian float32', async () => {
      const { upstream, e2e } = fixture;
      upstream.reply(embeddingsReply());
      const response = await rawPost(e2e, '/v1/embeddings', { model: 'gpt-embed', input: ['first', 'second'], encoding_format: 'base64' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { model: string; data: { index: number; embedding: string }[] };
      expect(body.model).toBe('gpt-embed');
      expect(body.data.map((item) => typeof item.embedding)).toEqual(['string', 'string']);
      expect(Buffer.from(body.data[0]!.embedding, 'base64').subarray(0, 4)).toEqual(Buffer.from([0xcd, 0xcc, 0xcc, 0x3d])); // 0.1f, little-endian
      expect(body.data.map((item) => decodeFloat32Base64(item.embedding))).toEqual(vectors.map((vector) => vector.map(Math.fround)));
    });

    it('passes an allowed dimensions value to the upstream', async () => {
      const { upstream, e2e } = fixture;
      upstream.reply(embeddingsReply([[0.5, 0.5]]));
      const result = await e2e.client.embeddings.create({ model: 'gpt-embed', input: 'short', dimensions: 256, encoding_format: 'float' });
      expect(result.data[0]?.embedding).toEqual([0.5, 0.5]);
      expect(upstream.requests[0]?.body).toEqual({
        model: 'text-embedding-3-small',
        input: 'short',
        dimensions: 256,
        encoding_format: 'float',
      });
    });

    it('refuses dimensions outside the list, and on a model without one, before any upstream call', async () => {
      const { upstream, e2e } = fixture;
      const outside = await apiErrorOf(e2e.client.embeddings.create({ model: 'gpt-embed', input: 'x', dimensions: 512 }));
      expect(outside.status).toBe(400);
      expect(outside.error).toMatchObject({ type: 'invalid_request_error', param: 'dimensions' });
      const none = await apiErrorOf(e2e.client.embeddings.create({ model: 'ada-embed', input: 'x', dimensions: 256 }));
      expect(none.status).toBe(400);
      expect(none.error).toMatchObject({ type: 'invalid_request_error', param: 'dimensions' });
      expect(upstream.requests).toHaveLength(0);
    });
  });
});
