import type { EmbeddingsResult, ModelTarget } from '../types';
import type { OpenAiEmbeddings } from './openai-schemas';

type EmbeddingsResponse = EmbeddingsResult['response'];

/**
 * Upstream embeddings -> the gateway's list, ordered by `index` (the order of `input`, which
 * OpenAI does not promise to keep in `data`). Null when the vectors do not match the inputs
 * one to one: a wrong count or index is a broken reply, not something to pass on.
 */
export function toEmbeddingsResponse(upstream: OpenAiEmbeddings, target: ModelTarget, inputs: number): EmbeddingsResponse | null {
  const data = upstream.data.map((item, position) => ({
    object: 'embedding' as const,
    index: item.index ?? position,
    embedding: typeof item.embedding === 'string' ? decodeBase64Floats(item.embedding) : item.embedding,
  }));
  data.sort((left, right) => left.index - right.index);
  if (data.length !== inputs || data.some((item, position) => item.index !== position)) return null;
  const promptTokens = upstream.usage?.prompt_tokens ?? 0;
  return {
    object: 'list',
    data,
    model: target.id,
    usage: { prompt_tokens: promptTokens, total_tokens: upstream.usage?.total_tokens ?? promptTokens },
  };
}

/** OpenAI's base64 encoding: little-endian float32 values. */
function decodeBase64Floats(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const values: number[] = [];
  for (let offset = 0; offset + 4 <= bytes.length; offset += 4) values.push(bytes.readFloatLE(offset));
  return values;
}
