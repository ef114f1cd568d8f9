import type { ChatCompletionRequest, ResponsesRequest } from '../../contract';
import { admit } from '../completions/admission';
import type { ChatDependencies } from '../completions/chat-call';
import { runNativePassThrough, type PassThroughFormat } from '../completions/pass-through';
import type { Attempt } from '../completions/resolve-model';
import type { ModelCall } from '../pipeline/model-pipeline';
import type { ReservationFields } from '../rate-limit/key-limiter';
import { encodeSseEvent } from '../streaming/encode-sse';
import { countTextTokens, promptTokenCounter, quickPromptTokens } from '../usage/count-tokens';
import { replyOutputText } from '../completions/reply-output-text';
import { RESPONSES_OUTPUT_TEXT, ResponsesUsageReader } from './pass-through';

export interface PassThroughCall extends ModelCall<ResponsesRequest> {
  /** The request as chat, for its token estimate only (the reservation, a missing usage). */
  estimate: ChatCompletionRequest;
}

/** What the 400 of a request that can never fit the key's tokens per minute names (docs/operator-controls.md). */
export const RESPONSES_FIELDS: ReservationFields = { prompt: 'input', completion: 'max_output_tokens' };

/**
 * /v1/responses to an upstream that serves it (`responses_api: true`, docs/openai-responses.md):
 * the body as it came with `model` replaced, the reply or stream passed back as received, the
 * usage read on the way (ResponsesUsageReader), by the native pass-through
 * (completions/pass-through.ts), once admitted (completions/admission.ts: limits, meter, stream
 * slot; the fallbacks are those that serve the Responses API too). An empty reply counts as a bad response (retried, then 502).
 */
export async function runPassThrough(dependencies: ChatDependencies, call: PassThroughCall): Promise<null> {
  const { body, context, reply, estimate } = call;
  const stream = body.stream === true;
  const {
    model,
    attempts,
    meter: reserving,
  } = admit(dependencies, {
    key: call.key,
    context,
    client: reply,
    model: body.model,
    kind: 'chat',
    upstream: 'responses',
    stream,
    promptTokens: quickPromptTokens(estimate),
    completionTokens: body.max_output_tokens,
    fields: RESPONSES_FIELDS,
    body,
  });
  const meter = await reserving;
  const promptEstimate = promptTokenCounter(estimate);

  const format: PassThroughFormat<Attempt> = {
    newReader: () => new ResponsesUsageReader(),
    send: (attempt, options) => {
      if (!attempt.adapter.responses) throw new Error(`The provider of "${attempt.model.id}" has no Responses API call.`);
      return attempt.adapter.responses(body, attempt.target, { ...options, stream });
    },
    estimate: (replyText) => ({
      promptTokens: promptEstimate(),
      completionTokens: countTextTokens(replyOutputText(replyText, stream, RESPONSES_OUTPUT_TEXT)),
    }),
    // OpenAI's `error` event: the stream failed without a final response event.
    errorEvent: (error) =>
      encodeSseEvent('error', { type: 'error', code: error.code, message: error.message, param: null, sequence_number: 0 }),
    incompleteStream: 'an event stream that ended before response.completed',
  };
  await runNativePassThrough(dependencies, { context, reply, stream, model, meter, attempts, format });
  return null;
}
