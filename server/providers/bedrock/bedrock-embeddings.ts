import type { EmbeddingsRequest } from '../../../contract';
import { invalidRequest } from '../../errors/gateway-error';
import type { CallOptions, EmbeddingsResult, ModelTarget } from '../types';
import { badResponse } from '../upstream-errors';
import { embeddingFamily } from './bedrock-models';
import { CohereEmbeddingResponseSchema, TitanEmbeddingResponseSchema } from './bedrock-schemas';
import { firstHeader, type BedrockTransport } from './bedrock-transport';

/**
 * OpenAI embeddings -> InvokeModel on an embedding model, in the body of its family:
 * - Titan Text Embeddings (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html):
 *   one text per call (`inputText`, `dimensions`, `normalize`), so a list is embedded text by
 *   text, a few calls at a time; usage is the sum of `inputTextTokenCount`.
 * - Cohere Embed (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html):
 *   up to 96 `texts` per call with `input_type: search_document` (`output_dimension` where the
 *   catalogue allows dimensions, Embed v4); usage from the `x-amzn-bedrock-input-token-count`
 *   header every InvokeModel reply carries.
 * `dimensions` must be one of the catalogue's (docs/embeddings.md).
 */
const TITAN_CONCURRENCY = 8;
export const COHERE_BATCH_SIZE = 96;

export async function createBedrockEmbeddings(
  transport: BedrockTransport,
  provider: string,
  request: EmbeddingsRequest,
  target: ModelTarget,
  options: CallOptions,
): Promise<EmbeddingsResult> {
  const family = embeddingFamily(target.upstreamModel);
  if (!family) {
    throw invalidRequest(
      'unsupported_capability',
      `The model "${target.id}" is not a Titan or Cohere embedding model on Bedrock.`,
      'model',
    );
  }
  if (request.dimensions !== undefined && !(target.dimensions ?? []).includes(request.dimensions)) {
    const message = target.dimensions?.length
      ? `dimensions must be one of ${target.dimensions.join(', ')} for this model.`
      : 'This model does not accept dimensions.';
    throw invalidRequest('invalid_value', message, 'dimensions');
  }
  const texts = typeof request.input === 'string' ? [request.input] : request.input;
  const embed = family === 'titan' ? embedWithTitan : embedWithCohere;
  const { vectors, promptTokens } = await embed({ transport, provider, dimensions: request.dimensions, target, options }, texts);
  return {
    response: {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding' as const, index, embedding })),
      model: target.id,
      usage: { prompt_tokens: promptTokens ?? 0, total_tokens: promptTokens ?? 0 },
    },
    usage: promptTokens === null ? null : { promptTokens, completionTokens: 0 },
  };
}

/** What one embeddings request's upstream calls share. */
interface EmbedCall {
  transport: BedrockTransport;
  provider: string;
  dimensions: number | undefined;
  target: ModelTarget;
  options: CallOptions;
}

interface Embedded {
  vectors: number[][];
  /** null when the upstream did not report the count. */
  promptTokens: number | null;
}

async function embedWithTitan(call: EmbedCall, texts: string[]): Promise<Embedded> {
  const { transport, dimensions, target, options } = call;
  const vectors: number[][] = [];
  let promptTokens: number | null = 0;
  for (let start = 0; start < texts.length; start += TITAN_CONCURRENCY) {
    const replies = await Promise.all(
      texts.slice(start, start + TITAN_CONCURRENCY).map((inputText) => {
        const body = { inputText, ...(dimensions !== undefined ? { dimensions, normalize: true } : {}) };
        return transport.postJson(target.upstreamModel, 'invoke', body, options, TitanEmbeddingResponseSchema);
      }),
    );
    for (const { value } of replies) {
      vectors.push(value.embedding);
      promptTokens = promptTokens === null || value.inputTextTokenCount === undefined ? null : promptTokens + value.inputTextTokenCount;
    }
  }
  return { vectors, promptTokens };
}

async function embedWithCohere(call: EmbedCall, texts: string[]): Promise<Embedded> {
  const { transport, provider, dimensions, target, options } = call;
  const vectors: number[][] = [];
  let promptTokens: number | null = 0;
  for (let start = 0; start < texts.length; start += COHERE_BATCH_SIZE) {
    const slice = texts.slice(start, start + COHERE_BATCH_SIZE);
    const body = { texts: slice, input_type: 'search_document', ...(dimensions !== undefined ? { output_dimension: dimensions } : {}) };
    const { value, response } = await transport.postJson(target.upstreamModel, 'invoke', body, options, CohereEmbeddingResponseSchema);
    const embeddings = Array.isArray(value.embeddings) ? value.embeddings : value.embeddings.float;
    if (embeddings.length !== slice.length) throw badResponse(provider, 'a different number of embeddings than inputs');
    vectors.push(...embeddings);
    const counted = Number.parseInt(firstHeader(response.headers['x-amzn-bedrock-input-token-count']) ?? '', 10);
    promptTokens = promptTokens === null || !Number.isFinite(counted) ? null : promptTokens + counted;
  }
  return { vectors, promptTokens };
}
