import type { EmbeddingsRequest, EmbeddingsResponse } from '../../contract';
import { invalidRequest } from '../errors/gateway-error';
import type { ModelConfig } from '../config/load-config';
import type { CachedApiKey } from '../keys/key-cache';
import type { ReservationFields } from '../rate-limit/key-limiter';
import { timeUpstream } from '../metrics/request-timing';
import type { ClientConnection } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import { UpstreamCall } from './upstream-call';
import { decodeFloat32Base64, float32Base64 } from '../providers/embedding-base64';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import { withAttemptTrace } from '../providers/trace-headers';
import { estimateEmbeddingTokens, quickEmbeddingTokens } from '../usage/count-tokens';
import type { ChatDependencies } from './chat-call';
import { admit } from './admission';
import { observedAttempt } from './observe-upstream';
import type { Attempt } from './resolve-model';

export interface EmbeddingsCall {
  body: EmbeddingsRequest;
  key: CachedApiKey;
  context: RequestContext;
  /** The client: one that goes away cancels the upstream call. */
  client: ClientConnection;
}

/** POST /v1/embeddings: single and batch input, float or base64, `dimensions` where allowed. */
export async function createEmbeddings(dependencies: ChatDependencies, call: EmbeddingsCall): Promise<EmbeddingsResponse> {
  const { body, context } = call;
  // Reserved on a quick estimate; the tokenizer runs only if the provider reports no usage.
  const {
    model,
    attempts,
    meter: reserving,
  } = admit(dependencies, {
    key: call.key,
    context,
    client: call.client,
    model: body.model,
    kind: 'embeddings',
    upstream: 'embeddings',
    stream: false,
    promptTokens: quickEmbeddingTokens(body),
    // An embedding has no reply to bound.
    completionTokens: 0,
    fields: EMBEDDING_FIELDS,
    body,
    check: checkDimensions,
  });
  const meter = await reserving;

  const upstream = new UpstreamCall(dependencies.config.upstream, context, call.client);
  const { controller } = upstream;
  try {
    const { value, attempt } = await timeUpstream(context, () =>
      callWithFallbacks(
        attempts,
        observedAttempt(dependencies.metrics, context, false, (entry: Attempt, trace) =>
          entry.adapter.embeddings(body, entry.target, withAttemptTrace(upstream.options, trace)),
        ),
        upstream.retry,
      ),
    );
    const promptTokens = value.usage?.promptTokens ?? estimateEmbeddingTokens(body);
    // docs/usage-durability.md: the reply goes out once its usage would survive a crash.
    await meter.finish({
      model: attempt.model,
      promptTokens,
      completionTokens: 0,
      estimated: value.usage === null,
      status: 200,
      errorCode: null,
    });
    context.model = attempt.model.id;
    context.provider = attempt.deployment.provider;
    const base64 = body.encoding_format === 'base64';
    return {
      object: 'list',
      data: value.response.data.map((item) => ({
        object: 'embedding' as const,
        index: item.index,
        embedding: asAsked(item.embedding, base64),
      })),
      model: attempt.model.id,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
  } catch (error) {
    throw meter.callFailed(model, error, context.requestId, controller.signal.aborted);
  } finally {
    upstream.release();
  }
}

/** docs/embeddings.md: a model's `dimensions` list is the set of values a request may ask for. */
function checkDimensions(model: ModelConfig, _attempts: readonly Attempt[], body: EmbeddingsRequest): void {
  if (body.dimensions === undefined) return;
  if (!model.dimensions)
    throw invalidRequest('invalid_value', `The model "${model.id}" does not support the dimensions parameter.`, 'dimensions');
  if (!model.dimensions.includes(body.dimensions)) {
    throw invalidRequest('invalid_value', `The model "${model.id}" supports dimensions ${model.dimensions.join(', ')}.`, 'dimensions');
  }
}

/** A vector in the encoding the client asked for. */
function asAsked(embedding: number[] | string, base64: boolean): number[] | string {
  if (base64) return typeof embedding === 'string' ? embedding : float32Base64(embedding);
  return typeof embedding === 'string' ? decodeFloat32Base64(embedding) : embedding;
}

/** An embedding has no output limit: its only field is `input`. */
const EMBEDDING_FIELDS: ReservationFields = { prompt: 'input', completion: 'input' };
