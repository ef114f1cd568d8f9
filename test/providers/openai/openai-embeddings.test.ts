import { describe, expect, it } from 'vitest';
import { embeddingsBody } from '../../fixtures/openai/openai-bodies';
import { embeddingTarget, rejection, useHarness } from './harness';

describe('openai adapter: embeddings', () => {
  const harness = useHarness();

  it('asks for base64 when the client does, passes dimensions and the upstream model name', async () => {
    harness.upstream.reply({ type: 'json', body: embeddingsBody() });
    await harness.adapter.embeddings(
      { model: 'embed-catalogue', input: ['first', 'second'], encoding_format: 'base64', dimensions: 512, user: 'u-1' },
      embeddingTarget,
      harness.options(),
    );
    const [request] = harness.upstream.requests;
    expect(request?.path).toBe('/v1/embeddings');
    expect(request?.body).toMatchInlineSnapshot(`
      {
        "dimensions": 512,
        "encoding_format": "base64",
        "input": [
          "first",
          "second",
        ],
        "model": "text-embedding-3-small",
        "user": "u-1",
      }
    `);
  });

  it('asks for floats when the client asks for floats or says nothing', async () => {
    for (const encoding of ['float', undefined] as const) {
      harness.upstream.reply({ type: 'json', body: embeddingsBody() });
      await harness.adapter.embeddings(
        { model: 'embed-catalogue', input: ['first', 'second'], ...(encoding ? { encoding_format: encoding } : {}) },
        embeddingTarget,
        harness.options(),
      );
    }
    expect(harness.upstream.requests.map((request) => (request.body as { encoding_format: unknown }).encoding_format)).toEqual([
      'float',
      'float',
    ]);
  });

  it('returns the vectors in input order with the catalogue model id', async () => {
    harness.upstream.reply({ type: 'json', body: embeddingsBody() });
    const result = await harness.adapter.embeddings(
      { model: 'embed-catalogue', input: ['first', 'second'] },
      embeddingTarget,
      harness.options(),
    );
    expect(result).toEqual({
      response: {
        object: 'list',
        data: [
          { object: 'embedding', index: 0, embedding: [0.0023064255, -0.009327292, 0.015797347] },
          { object: 'embedding', index: 1, embedding: [0.5, -0.25, 0.125] },
        ],
        model: 'embed-catalogue',
        usage: { prompt_tokens: 8, total_tokens: 8 },
      },
      usage: { promptTokens: 8, completionTokens: 0 },
    });
  });

  it('decodes base64 vectors from servers that ignore encoding_format, and tolerates missing usage', async () => {
    const floats = Buffer.alloc(8);
    floats.writeFloatLE(0.5, 0);
    floats.writeFloatLE(-2, 4);
    harness.upstream.reply({ type: 'json', body: { data: [{ embedding: floats.toString('base64') }] } });
    const result = await harness.adapter.embeddings({ model: 'embed-catalogue', input: 'one' }, embeddingTarget, harness.options());
    expect(result.response.data).toEqual([{ object: 'embedding', index: 0, embedding: [0.5, -2] }]);
    expect(result.usage).toBeNull();
  });

  it('refuses a reply whose vectors do not match the inputs', async () => {
    harness.upstream.reply({ type: 'json', body: embeddingsBody() });
    const error = await rejection(
      harness.adapter.embeddings({ model: 'embed-catalogue', input: ['a', 'b', 'c'] }, embeddingTarget, harness.options()),
    );
    expect(error).toMatchObject({ kind: 'bad_response', status: 502 });
  });

  it('maps upstream errors like chat does', async () => {
    harness.upstream.reply({
      type: 'json',
      status: 400,
      body: {
        error: { message: 'dimensions is not supported by this model', type: 'invalid_request_error', param: 'dimensions', code: null },
      },
    });
    const error = await rejection(
      harness.adapter.embeddings({ model: 'embed-catalogue', input: 'a', dimensions: 3 }, embeddingTarget, harness.options()),
    );
    expect(error).toMatchObject({
      kind: 'rejected',
      message: 'The provider "openai" rejected the request: dimensions is not supported by this model',
    });
  });
});
