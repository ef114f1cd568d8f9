import type { ChatCompletionRequest, ResponsesRequest } from '../../contract';
import { defaultCompletionReserve, holdStreamSlot, type ChatDependencies } from '../completions/chat-call';
import { Meter } from '../completions/meter';
import { runNativePassThrough, type PassThroughFormat } from '../completions/pass-through';
import type { Attempt } from '../completions/resolve-model';
import { effectiveLimits } from '../keys/key-access';
import { checkModelAllowed } from '../keys/model-access';
import type { ModelCall } from '../pipeline/model-pipeline';
import { checkReservationFits, type ReservationFields } from '../rate-limit/key-limiter';
import { encodeSseEvent } from '../streaming/encode-sse';
import { countTextTokens, promptTokenCounter, quickPromptTokens } from '../usage/count-tokens';
import { ResponsesUsageReader, streamOutputText } from './pass-through';

export interface PassThroughCall extends ModelCall<ResponsesRequest> {
  /** The request as chat, for its token estimate only (the reservation, a missing usage). */
  estimate: ChatCompletionRequest;
  /** The model and its fallbacks that serve the Responses API. */
  attempts: Attempt[];
}

/** What the 400 of a request that can never fit the key's tokens per minute names (docs/operator-controls.md). */
export const RESPONSES_FIELDS: ReservationFields = { prompt: 'input', completion: 'max_output_tokens' };

/**
 * /v1/responses to an upstream that serves it (`responses_api: true`, docs/openai-responses.md):
 * the body as it came with `model` replaced, the reply or stream passed back as received, the
 * usage read on the way (ResponsesUsageReader), by the native pass-through
 * (completions/pass-through.ts). Limits and the stream slot are the chat call's
 * (completions/chat-call.ts). An empty reply counts as a bad response (retried, then 502).
 */
export async function runPassThrough(dependencies: ChatDependencies, call: PassThroughCall): Promise<null> {
  const { body, context, reply, estimate } = call;
  const receivedAt = dependencies.now();
  const stream = body.stream === true;
  const model = call.attempts[0]?.model;
  if (!model) throw new Error('runPassThrough needs at least one attempt.');
  checkModelAllowed(call.key, model.id);
  context.model = model.id;
  context.provider = model.provider;
  context.stream = stream;

  const promptEstimate = promptTokenCounter(estimate);
  const completionReserve = body.max_output_tokens ?? defaultCompletionReserve(model);
  const promptReserve = quickPromptTokens(estimate);
  checkReservationFits(effectiveLimits(call.key, dependencies.limits).tpm, promptReserve, completionReserve, RESPONSES_FIELDS);
  const meter = await Meter.open(dependencies, {
    key: call.key,
    requestId: context.requestId,
    receivedAt,
    stream,
    reserveTokens: promptReserve + completionReserve,
    context,
    model,
    promptTokens: quickPromptTokens(estimate),
    fields: RESPONSES_FIELDS,
  });
  if (stream) holdStreamSlot(dependencies.streams, meter, { key: call.key, context, client: reply });

  const format: PassThroughFormat<Attempt> = {
    newReader: () => new ResponsesUsageReader(),
    send: (attempt, options) => {
      if (!attempt.adapter.responses) throw new Error(`The provider of "${attempt.model.id}" has no Responses API call.`);
      return attempt.adapter.responses(body, attempt.target, { ...options, stream });
    },
    // The gateway's count: the whole reply's text, or a stream's output deltas.
    estimate: (replyText) => ({
      promptTokens: promptEstimate(),
      completionTokens: countTextTokens(stream ? streamOutputText(replyText) : replyText),
    }),
    // OpenAI's `error` event: the stream failed without a final response event.
    errorEvent: (error) =>
      encodeSseEvent('error', { type: 'error', code: error.code, message: error.message, param: null, sequence_number: 0 }),
    incompleteStream: 'an event stream that ended before response.completed',
  };
  await runNativePassThrough(dependencies, { context, reply, stream, model, meter, attempts: call.attempts, format });
  return null;
}
