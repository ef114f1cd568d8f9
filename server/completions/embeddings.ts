import type { EmbeddingsRequest, EmbeddingsResponse } from '../../contract';
import { invalidRequest } from '../errors/gateway-error';
import type { CachedApiKey } from '../keys/key-cache';
import { effectiveLimits } from '../keys/key-access';
import { checkModelAllowed } from '../keys/model-access';
import { checkReservationFits } from '../rate-limit/key-limiter';
import { timeUpstream } from '../metrics/request-timing';
import type { ClientConnection } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import { UpstreamCall } from './upstream-call';
import { decodeFloat32Base64, float32Base64 } from '../providers/embedding-base64';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import { estimateEmbeddingTokens, quickEmbeddingTokens } from '../usage/count-tokens';
import type { ChatDependencies } from './chat-call';
import { toGatewayError } from './to-gateway-error';
import { Meter } from './meter';
import { observedAttempt } from './observe-upstream';
import { attemptsFor, resolveModel, type Attempt } from './resolve-model';

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
  const receivedAt = dependencies.now();
  const model = resolveModel(dependencies.catalogue, body.model, 'embeddings');
  checkModelAllowed(call.key, model.id);
  // Metrics and the access log name the requested model until another one answers.
  context.model = model.id;
  context.provider = model.provider;
  if (body.dimensions !== undefined) {
    // docs/embeddings.md: a model's `dimensions` list is the set of values a request may ask for.
    if (!model.dimensions)
      throw invalidRequest('invalid_value', `The model "${model.id}" does not support the dimensions parameter.`, 'dimensions');
    if (!model.dimensions.includes(body.dimensions)) {
      throw invalidRequest('invalid_value', `The model "${model.id}" supports dimensions ${model.dimensions.join(', ')}.`, 'dimensions');
    }
  }
  const attempts = attemptsFor(dependencies.catalogue, model, dependencies.config, (name) => dependencies.providers.get(name));
  // Reserved on a quick estimate; the tokenizer runs only if the provider reports no usage.
  const quickPrompt = quickEmbeddingTokens(body);
  checkReservationFits(effectiveLimits(call.key, dependencies.limits).tpm, quickPrompt, 0, EMBEDDING_FIELDS);
  const meter = await Meter.open(dependencies, {
    key: call.key,
    requestId: context.requestId,
    receivedAt,
    stream: false,
    reserveTokens: quickPrompt,
    context,
    model,
    promptTokens: quickPrompt,
    fields: EMBEDDING_FIELDS,
  });

  const upstream = new UpstreamCall(dependencies.config.upstream, context, call.client);
  const { controller } = upstream;
  try {
    const { value, attempt } = await timeUpstream(context, () =>
      callWithFallbacks(
        attempts,
        observedAttempt(dependencies.metrics, false, (entry: Attempt) => entry.adapter.embeddings(body, entry.target, upstream.options)),
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
    context.provider = attempt.model.provider;
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
    const gatewayError = toGatewayError(error, context.requestId, controller.signal.aborted);
    meter.failed(model, gatewayError);
    throw gatewayError;
  } finally {
    upstream.release();
  }
}

/** A vector in the encoding the client asked for. */
function asAsked(embedding: number[] | string, base64: boolean): number[] | string {
  if (base64) return typeof embedding === 'string' ? embedding : float32Base64(embedding);
  return typeof embedding === 'string' ? decodeFloat32Base64(embedding) : embedding;
}

/** An embedding has no output limit: its only field is `input`. */
const EMBEDDING_FIELDS = { prompt: 'input', completion: 'input' };
