import type { ChatCompletionRequest, ResponsesRequest } from '../../contract';
import { holdStreamSlot, type ChatDependencies } from '../completions/chat-call';
import { Meter } from '../completions/meter';
import { observedAttempt } from '../completions/observe-upstream';
import type { Attempt } from '../completions/resolve-model';
import { toGatewayError } from '../completions/to-gateway-error';
import { effectiveLimits } from '../keys/key-access';
import { checkModelAllowed } from '../keys/model-access';
import type { ModelCall } from '../pipeline/model-pipeline';
import { timeUpstream } from '../metrics/request-timing';
import { CallAbort } from '../providers/call-signal';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import { checkReservationFits, type ReservationFields } from '../rate-limit/key-limiter';
import { isAbortError } from '../providers/http-client';
import type { HttpResponse, TokenUsage } from '../providers/types';
import { badResponse } from '../providers/upstream-errors';
import { encodeSseEvent } from '../streaming/encode-sse';
import { sendSse } from '../streaming/send-sse';
import { countTextTokens, promptTokenCounter, quickPromptTokens } from '../usage/count-tokens';
import { PassThroughStreamReader, usageOfReplyText } from './pass-through';

export interface PassThroughCall extends ModelCall<ResponsesRequest> {
  /** The request as chat, for its token estimate only (the reservation, a missing usage). */
  estimate: ChatCompletionRequest;
  /** The model and its fallbacks that serve the Responses API. */
  attempts: Attempt[];
}

const DEFAULT_COMPLETION_RESERVE = 4096;

/** What the 400 of a request that can never fit the key's tokens per minute names (docs/operator-controls.md). */
export const RESPONSES_FIELDS: ReservationFields = { prompt: 'input', completion: 'max_output_tokens' };

/**
 * /v1/responses to an upstream that serves it (`responses_api: true`, docs/openai-responses.md):
 * the body as it came with `model` replaced, the reply or stream passed back as received, the
 * usage read on the way. Limits, retries and fallbacks, the stream slot and the single usage
 * event are the chat call's (completions/chat-call.ts).
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
  const completionReserve =
    body.max_output_tokens ?? Math.min(model.maxOutputTokens ?? DEFAULT_COMPLETION_RESERVE, DEFAULT_COMPLETION_RESERVE);
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

  const controller = new CallAbort();
  const retry = {
    maxRetries: dependencies.config.upstream.maxRetries,
    baseDelayMs: dependencies.config.upstream.retryBaseDelayMs,
    signal: controller.signal,
  };
  const onEarlyClose = () => controller.abort();
  reply.onClose(onEarlyClose);
  const options = { signal: controller.signal, requestId: context.requestId, stream };
  const send = (attempt: Attempt): Promise<HttpResponse> => {
    if (!attempt.adapter.responses) throw new Error(`The provider of "${attempt.model.id}" has no Responses API call.`);
    return attempt.adapter.responses(body, attempt.target, options);
  };

  let answered;
  try {
    answered = await timeUpstream(context, () =>
      callWithFallbacks(call.attempts, observedAttempt(dependencies.metrics, stream, send), retry),
    );
  } catch (error) {
    reply.offClose(onEarlyClose);
    const gatewayError = toGatewayError(error, context.requestId, controller.signal.aborted);
    meter.failed(model, gatewayError);
    throw gatewayError;
  }
  const { value: upstream, attempt } = answered;
  context.model = attempt.model.id;
  context.provider = attempt.model.provider;
  /** Records the call once: the upstream's usage, or the gateway's count of `text` when it reported none. */
  const finish = (usage: TokenUsage | null, text: string, status = 200, errorCode: string | null = null): Promise<void> => {
    const counted = usage ?? { promptTokens: promptEstimate(), completionTokens: countTextTokens(text) };
    return meter.finish({ model: attempt.model, ...counted, estimated: usage === null, status, errorCode });
  };

  if (stream) {
    reply.offClose(onEarlyClose);
    sendSse(reply, passedThroughEvents(upstream, attempt.model.provider, finish, context.requestId), () => controller.abort());
    return null;
  }
  try {
    const text = await upstream.text();
    if (text.length === 0) throw badResponse(attempt.model.provider, 'an empty body');
    // The whole usage, breakdown (cached, reasoning) included, goes to the meter.
    // docs/usage-durability.md: the reply goes out once its usage would survive a crash.
    await finish(usageOfReplyText(text), text);
    reply.sendJson(200, text);
    return null;
  } catch (error) {
    const gatewayError = toGatewayError(error, context.requestId, controller.signal.aborted);
    meter.failed(model, gatewayError);
    throw gatewayError;
  } finally {
    reply.offClose(onEarlyClose);
  }
}

type Finish = (usage: TokenUsage | null, text: string, status?: number, errorCode?: string | null) => Promise<void>;

/** The upstream's events as they came; its final event's usage is what is metered. */
async function* passedThroughEvents(upstream: HttpResponse, provider: string, finish: Finish, requestId: string): AsyncGenerator<string> {
  const reader = new PassThroughStreamReader();
  let status = 200;
  let errorCode: string | null = null;
  let completed = false;
  try {
    for await (const bytes of upstream.body) {
      const text = reader.read(bytes);
      if (text !== '') yield text;
    }
    const rest = reader.end();
    if (rest !== '') yield rest;
    if (!reader.ended) throw badResponse(provider, 'an event stream that ended before response.completed');
    completed = true;
  } catch (error) {
    if (isAbortError(error)) return;
    const gatewayError = toGatewayError(error, requestId, false);
    status = gatewayError.status;
    errorCode = gatewayError.code;
    completed = true;
    // OpenAI's `error` event: the stream failed without a final response event.
    yield encodeSseEvent('error', {
      type: 'error',
      code: gatewayError.code,
      message: gatewayError.message,
      param: null,
      sequence_number: 0,
    });
  } finally {
    if (!completed) {
      status = 499;
      errorCode = 'client_closed_request';
    }
    void finish(reader.usage, reader.output, status, errorCode);
  }
}
