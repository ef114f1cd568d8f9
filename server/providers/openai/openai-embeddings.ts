import { decodeFloat32Base64, isFloat32Base64 } from '../embedding-base64';
import type { EmbeddingsResult, ModelTarget } from '../types';
import type { OpenAiEmbeddings } from './openai-schemas';

type EmbeddingsResponse = EmbeddingsResult['response'];

/**
 * Upstream embeddings -> the gateway's list, ordered by `index` (the order of `input`, which
 * OpenAI does not promise to keep in `data`). Null when the vectors do not match the inputs
 * one to one: a wrong count or index is a broken reply, not something to pass on.
 */
export function toEmbeddingsResponse(
  upstream: OpenAiEmbeddings,
  target: ModelTarget,
  inputs: number,
  base64: boolean,
): EmbeddingsResponse | null {
  const data = upstream.data.map((item, position) => ({
    object: 'embedding' as const,
    index: item.index ?? position,
    embedding: typeof item.embedding === 'string' ? passedOrDecoded(item.embedding, base64) : item.embedding,
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

/**
 * A base64 vector as the client gets it: passed on as it came when the client asked for
 * base64 and it is well-formed; otherwise its floats (the route encodes them again for a
 * base64 client, so a sloppy encoding reaches the client canonical).
 */
function passedOrDecoded(text: string, base64: boolean): string | number[] {
  return base64 && isFloat32Base64(text) ? text : decodeFloat32Base64(text);
}
