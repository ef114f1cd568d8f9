import { z } from 'zod';
import type { EmbeddingsRequest } from '../../../contract';
import { checkDimensions } from '../gemini/gemini-embeddings';
import type { GeminiTransport } from '../gemini/gemini-transport';
import type { CallOptions, EmbeddingsResult, ModelTarget } from '../types';
import { badResponse } from '../upstream-errors';

/**
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api:
 * each prediction carries its vector and the input's token count.
 */
const PredictResponseSchema = z.object({
  predictions: z.array(
    z.object({
      embeddings: z.object({
        values: z.array(z.number()),
        statistics: z.object({ token_count: z.number().nonnegative() }).partial().optional(),
      }),
    }),
  ),
});

/**
 * Inputs per `:predict` call: 250 for the text-embedding models, one for gemini-embedding
 * models (the limits of the page above).
 */
export function predictBatchSize(model: string): number {
  return model.startsWith('gemini-embedding') ? 1 : 250;
}

/**
 * OpenAI embeddings -> Vertex AI text embeddings: `{instances: [{content}], parameters:
 * {outputDimensionality}}` to `:predict`, in slices of the model's batch size, the vectors
 * back in request order. Usage is the sum of the predictions' `statistics.token_count`.
 */
export async function createVertexEmbeddings(
  transport: GeminiTransport,
  provider: string,
  request: EmbeddingsRequest,
  target: ModelTarget,
  options: CallOptions,
): Promise<EmbeddingsResult> {
  checkDimensions(request, target);
  const inputs = typeof request.input === 'string' ? [request.input] : request.input;
  const batchSize = predictBatchSize(target.upstreamModel);
  const vectors: number[][] = [];
  let tokens = 0;
  for (let start = 0; start < inputs.length; start += batchSize) {
    const slice = inputs.slice(start, start + batchSize);
    const body = {
      instances: slice.map((content) => ({ content })),
      ...(request.dimensions !== undefined ? { parameters: { outputDimensionality: request.dimensions } } : {}),
    };
    const reply = await transport.postJson(target.upstreamModel, 'predict', body, options, PredictResponseSchema);
    if (reply.predictions.length !== slice.length) throw badResponse(provider, 'a different number of embeddings than inputs');
    for (const prediction of reply.predictions) {
      vectors.push(prediction.embeddings.values);
      tokens += prediction.embeddings.statistics?.token_count ?? 0;
    }
  }
  return {
    response: {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding' as const, index, embedding })),
      model: target.id,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
    usage: { promptTokens: tokens, completionTokens: 0 },
  };
}
