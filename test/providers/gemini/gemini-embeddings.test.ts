import { describe, expect, it } from 'vitest';
import type { EmbeddingsRequest } from '../../../contract';
import { googleError } from './fixtures';
import { API_KEY, callOptions, embeddingTarget, rejectionOf, useHarness } from './harness';

function vector(seed: number): number[] {
  return [seed, seed + 0.25, -seed];
}

describe('Gemini embeddings', () => {
  const harness = useHarness();

  const embed = (request: Pick<EmbeddingsRequest, 'input' | 'dimensions'>) =>
    harness.adapter.embeddings({ model: 'gemini-embedding', ...request }, embeddingTarget, callOptions());

  it('embeds a single string with embedContent', async () => {
    harness.upstream.reply({ type: 'json', body: { embedding: { values: vector(1) } } });
    const result = await embed({ input: 'hello world', dimensions: 768 });

    const [sent] = harness.upstream.requests;
    expect(sent?.path).toBe('/v1beta/models/text-embedding-004:embedContent');
    expect(sent?.headers['x-goog-api-key']).toBe(API_KEY);
    expect(sent?.body).toEqual({ content: { parts: [{ text: 'hello world' }] }, outputDimensionality: 768 });
    expect(result).toEqual({
      response: {
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: vector(1) }],
        model: 'gemini-embedding',
        usage: { prompt_tokens: 0, total_tokens: 0 },
      },
      usage: null,
    });
  });

  it('embeds an array with batchEmbedContents, keeping the input order', async () => {
    harness.upstream.reply({ type: 'json', body: { embeddings: [{ values: vector(1) }, { values: vector(2) }, { values: vector(3) }] } });
    const result = await embed({ input: ['one', 'two', 'three'], dimensions: 256 });

    const [sent] = harness.upstream.requests;
    expect(sent?.path).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
    expect(sent?.body).toEqual({
      requests: ['one', 'two', 'three'].map((text) => ({
        model: 'models/text-embedding-004',
        content: { parts: [{ text }] },
        outputDimensionality: 256,
      })),
    });
    expect(result.response.data.map((item) => [item.index, item.embedding])).toEqual([
      [0, vector(1)],
      [1, vector(2)],
      [2, vector(3)],
    ]);
    expect(result.usage).toBeNull();
  });

  it('splits large batches into calls of 100, in order', async () => {
    const input = Array.from({ length: 150 }, (_, index) => `text ${index}`);
    harness.upstream.reply(
      { type: 'json', body: { embeddings: input.slice(0, 100).map((_, index) => ({ values: vector(index) })) } },
      { type: 'json', body: { embeddings: input.slice(100).map((_, index) => ({ values: vector(100 + index) })) } },
    );
    const result = await embed({ input });

    const sizes = harness.upstream.requests.map((request) => (request.body as { requests: unknown[] }).requests.length);
    expect(sizes).toEqual([100, 50]);
    const secondBatch = harness.upstream.requests[1]?.body as { requests: unknown[] };
    expect(secondBatch.requests[0]).toEqual({ model: 'models/text-embedding-004', content: { parts: [{ text: 'text 100' }] } });
    expect(result.response.data.map((item) => item.embedding[0])).toEqual(input.map((_, index) => index));
    expect(result.response.data.map((item) => item.index)).toEqual(input.map((_, index) => index));
  });

  it('refuses dimensions the model does not list, without calling upstream', async () => {
    const error = await rejectionOf(embed({ input: 'x', dimensions: 1000 }));
    expect(error).toMatchObject({ status: 400, param: 'dimensions', code: 'invalid_value' });
    const withoutList = await rejectionOf(
      harness.adapter.embeddings({ model: 'm', input: 'x', dimensions: 256 }, { ...embeddingTarget, dimensions: undefined }, callOptions()),
    );
    expect(withoutList).toMatchObject({ status: 400, param: 'dimensions' });
    expect(harness.upstream.requests).toHaveLength(0);
  });

  it('treats a batch reply with a different count as a bad response', async () => {
    harness.upstream.reply({ type: 'json', body: { embeddings: [{ values: vector(1) }] } });
    const error = await rejectionOf(embed({ input: ['a', 'b'] }));
    expect(error).toMatchObject({ kind: 'bad_response', status: 502 });
  });

  it('maps upstream errors as for chat', async () => {
    harness.upstream.reply({
      type: 'json',
      status: 400,
      body: googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.'),
    });
    const error = await rejectionOf(embed({ input: ['a'] }));
    expect(error).toMatchObject({ status: 400, kind: 'rejected' });
    expect((error as Error).message).toContain('Request contains an invalid argument.');
  });
});
