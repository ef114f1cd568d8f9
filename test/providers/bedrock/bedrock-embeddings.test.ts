import { describe, expect, it } from 'vitest';
import type { ModelTarget } from '../../../server/providers/types';
import { callOptions, useHarness } from './harness';

const titan: ModelTarget = {
  id: 'titan',
  upstreamModel: 'amazon.titan-embed-text-v2:0',
  defaultMaxTokens: 0,
  dimensions: [256, 512, 1024],
};
const cohere: ModelTarget = { id: 'cohere', upstreamModel: 'cohere.embed-english-v3', defaultMaxTokens: 0 };

describe('bedrock adapter: embeddings through InvokeModel', () => {
  const harness = useHarness();

  it('embeds with Titan one text per call, in order, usage summed from inputTextTokenCount', async () => {
    harness.upstream.reply(
      { type: 'json', body: { embedding: [0.1, 0.2], inputTextTokenCount: 3 } },
      { type: 'json', body: { embedding: [0.3, 0.4], inputTextTokenCount: 5 } },
    );
    const result = await harness.adapter.embeddings({ model: 'titan', input: ['one', 'two'], dimensions: 256 }, titan, callOptions());
    expect(harness.upstream.requests.map((request) => [request.path, request.body])).toEqual([
      ['/model/amazon.titan-embed-text-v2%3A0/invoke', { inputText: 'one', dimensions: 256, normalize: true }],
      ['/model/amazon.titan-embed-text-v2%3A0/invoke', { inputText: 'two', dimensions: 256, normalize: true }],
    ]);
    expect(result.response.data).toEqual([
      { object: 'embedding', index: 0, embedding: [0.1, 0.2] },
      { object: 'embedding', index: 1, embedding: [0.3, 0.4] },
    ]);
    expect(result.usage).toEqual({ promptTokens: 8, completionTokens: 0 });
    expect(result.response.usage).toEqual({ prompt_tokens: 8, total_tokens: 8 });
  });

  it('embeds with Cohere in one call, usage from the input token count header', async () => {
    harness.upstream.reply({
      type: 'json',
      body: {
        id: 'e1',
        embeddings: [
          [1, 0],
          [0, 1],
        ],
        texts: ['a', 'b'],
        response_type: 'embeddings_floats',
      },
      headers: { 'x-amzn-bedrock-input-token-count': '4' },
    });
    const result = await harness.adapter.embeddings({ model: 'cohere', input: ['a', 'b'] }, cohere, callOptions());
    expect(harness.upstream.requests[0]?.body).toEqual({ texts: ['a', 'b'], input_type: 'search_document' });
    expect(result.response.data.map((item) => item.embedding)).toEqual([
      [1, 0],
      [0, 1],
    ]);
    expect(result.usage).toEqual({ promptTokens: 4, completionTokens: 0 });
  });

  it('reads Cohere vectors by type and leaves usage to the gateway without the header', async () => {
    harness.upstream.reply({ type: 'json', body: { embeddings: { float: [[0.5]] } } });
    const result = await harness.adapter.embeddings({ model: 'cohere', input: 'a' }, cohere, callOptions());
    expect(result.response.data[0]?.embedding).toEqual([0.5]);
    expect(result.usage).toBeNull();
  });

  it('refuses dimensions the catalogue does not allow, and a model of neither family, without a call', async () => {
    await expect(harness.adapter.embeddings({ model: 'titan', input: 'a', dimensions: 300 }, titan, callOptions())).rejects.toMatchObject({
      status: 400,
      param: 'dimensions',
    });
    const other: ModelTarget = { id: 'x', upstreamModel: 'amazon.nova-pro-v1:0', defaultMaxTokens: 0 };
    await expect(harness.adapter.embeddings({ model: 'x', input: 'a' }, other, callOptions())).rejects.toMatchObject({ status: 400 });
    expect(harness.upstream.requests).toHaveLength(0);
  });
});
