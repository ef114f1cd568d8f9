import type { EmbeddingsRequest } from '../../../contract';
import { invalidRequest } from '../../errors/gateway-error';
import type { CallOptions, EmbeddingsResult, ModelTarget } from '../types';
import { badResponse } from '../upstream-errors';
import { GeminiBatchEmbedContentsResponseSchema, GeminiEmbedContentResponseSchema, type GeminiEmbedContentRequest } from './gemini-schemas';
import { geminiModelName, type GeminiTransport } from './gemini-transport';

/** batchEmbedContents refuses more than 100 requests per call (HTTP 400). */
export const GEMINI_EMBED_BATCH_SIZE = 100;

/** docs/embeddings.md: the catalogue's `dimensions` list is what a request may ask for. */
export function checkDimensions(request: EmbeddingsRequest, target: ModelTarget): void {
  if (request.dimensions === undefined || (target.dimensions ?? []).includes(request.dimensions)) return;
  const message = target.dimensions?.length
    ? `dimensions must be one of ${target.dimensions.join(', ')} for this model.`
    : 'This model does not accept dimensions.';
  throw invalidRequest('invalid_value', message, 'dimensions');
}

/**
 * OpenAI embeddings -> Gemini (https://ai.google.dev/api/embeddings): one string ->
 * `:embedContent`; an array -> `:batchEmbedContents`, in slices of 100, whose `embeddings`
 * come back in request order. `dimensions` -> `outputDimensionality`. Gemini reports no token
 * counts for embeddings, so usage is null and the caller estimates.
 */
export async function createGeminiEmbeddings(
  transport: GeminiTransport,
  provider: string,
  request: EmbeddingsRequest,
  target: ModelTarget,
  options: CallOptions,
): Promise<EmbeddingsResult> {
  checkDimensions(request, target);
  const embed = (text: string): GeminiEmbedContentRequest => ({
    content: { parts: [{ text }] },
    ...(request.dimensions !== undefined ? { outputDimensionality: request.dimensions } : {}),
  });

  let vectors: number[][];
  if (typeof request.input === 'string') {
    const reply = await transport.postJson(
      target.upstreamModel,
      'embedContent',
      embed(request.input),
      options,
      GeminiEmbedContentResponseSchema,
    );
    vectors = [reply.embedding.values];
  } else {
    vectors = [];
    const model = `models/${geminiModelName(target.upstreamModel)}`;
    for (let start = 0; start < request.input.length; start += GEMINI_EMBED_BATCH_SIZE) {
      const slice = request.input.slice(start, start + GEMINI_EMBED_BATCH_SIZE);
      const body = { requests: slice.map((text) => ({ model, ...embed(text) })) };
      const reply = await transport.postJson(
        target.upstreamModel,
        'batchEmbedContents',
        body,
        options,
        GeminiBatchEmbedContentsResponseSchema,
      );
      if (reply.embeddings.length !== slice.length) throw badResponse(provider, 'a different number of embeddings than inputs');
      for (const embedding of reply.embeddings) vectors.push(embedding.values);
    }
  }

  return {
    response: {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding' as const, index, embedding })),
      model: target.id,
      usage: { prompt_tokens: 0, total_tokens: 0 },
    },
    usage: null,
  };
}
