import { describe, expect, it } from 'vitest';
import { baseModelId, embeddingFamily, isAnthropicModel } from '../../../server/providers/bedrock/bedrock-models';

describe('Bedrock model ids', () => {
  it.each([
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ['global.anthropic.claude-opus-4-5-20251101-v1:0', 'anthropic.claude-opus-4-5-20251101-v1:0'],
    ['apac.amazon.nova-pro-v1:0', 'amazon.nova-pro-v1:0'],
    [
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-3-7-sonnet-20250219-v1:0',
      'anthropic.claude-3-7-sonnet-20250219-v1:0',
    ],
    ['arn:aws:bedrock:us-east-1::foundation-model/cohere.embed-english-v3', 'cohere.embed-english-v3'],
    ['meta.llama3-3-70b-instruct-v1:0', 'meta.llama3-3-70b-instruct-v1:0'],
  ])('reads %s as %s', (id, base) => {
    expect(baseModelId(id)).toBe(base);
  });

  it('knows Claude and the embedding families in every spelling', () => {
    expect(isAnthropicModel('us.anthropic.claude-haiku-4-5-20251001-v1:0')).toBe(true);
    expect(isAnthropicModel('amazon.nova-lite-v1:0')).toBe(false);
    expect(embeddingFamily('amazon.titan-embed-text-v2:0')).toBe('titan');
    expect(embeddingFamily('us.cohere.embed-v4:0')).toBe('cohere');
    expect(embeddingFamily('amazon.titan-embed-image-v1')).toBeNull();
  });
});
