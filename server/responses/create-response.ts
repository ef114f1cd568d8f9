import type { Response } from 'express';
import type { ChatCompletionChunk, ResponsesRequest } from '../../contract';
import type { CachedApiKey } from '../keys/key-cache';
import { invalidRequest } from '../errors/gateway-error';
import { timeUpstream } from '../metrics/request-timing';
import { CallAbort } from '../providers/call-signal';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import { isAbortError } from '../providers/http-client';
import { badResponse } from '../providers/upstream-errors';
import type { ChatResult, ChatStream, HttpResponse, TokenUsage } from '../providers/types';
import { encodeSseEvent } from '../streaming/encode-sse';
import { sendSse } from '../streaming/send-sse';
import { countTextTokens, promptTokenCounter, quickPromptTokens } from '../usage/count-tokens';
import { holdStreamSlot, type ChatDependencies } from '../completions/chat-completion';
import { Meter } from '../completions/meter';
import { observedAttempt } from '../completions/observe-upstream';
import { attemptsFor, checkChatCapabilities, resolveModel, type Attempt } from '../completions/resolve-model';
import { toGatewayError } from '../completions/to-gateway-error';
import { chatToResponse, responseSkeleton, toResponsesUsage } from './chat-to-response';
import { PassThroughStreamReader, usageOfReplyText } from './pass-through';
import { ResponseStreamTranslator, type StreamEvent } from './response-stream';
import { responsesToChat, type ChatTranslation } from './responses-to-chat';

export interface ResponsesDependencies extends ChatDependencies {
  generateId: () => string;
}

export interface ResponsesCall {
  body: ResponsesRequest;
  key: CachedApiKey;
  requestId: string;
  response: Response;
}

const DEFAULT_COMPLETION_RESERVE = 4096;

/** What one attempt gave: the upstream's own Responses reply, or a chat reply to translate. */
type Answer = { kind: 'pass'; reply: HttpResponse } | { kind: 'chat'; result: ChatResult } | { kind: 'stream'; stream: ChatStream };

/**
 * POST /v1/responses (docs/openai-responses.md): stateless checks, limits, the call (each
 * attempt passed through to an upstream with `responses_api: true`, translated to chat
 * otherwise), usage. Returns the response object to send, or null when the reply is already
 * under way (a stream, or a passed-through JSON body).
 */
export async function createResponse(dependencies: ResponsesDependencies, call: ResponsesCall): Promise<object | null> {
  const { body, response } = call;
  const receivedAt = dependencies.now();
  checkStateless(body);
  const stream = body.stream === true;
  const model = resolveModel(dependencies.catalogue, body.model, 'chat');
  response.locals.model = model.id;
  response.locals.provider = model.provider;
  response.locals.stream = stream;
  const attempts = attemptsFor(dependencies.catalogue, model, dependencies.config, (name) => dependencies.providers.get(name));
  const passesThrough = (attempt: Attempt) => dependencies.config.providers[attempt.model.provider]?.responsesApi === true && attempt.adapter.responses !== undefined;
  const primary = dependencies.config.providers[model.provider];
  // The translation is also the token estimate of a passed-through request.
  const translation = responsesToChat(body, primary && !primary.responsesApi ? primary.responsesHostedTools : 'drop');
  if (!attempts.some(passesThrough)) checkChatCapabilities(model, translation.request);

  const promptEstimate = promptTokenCounter(translation.request);
  const completionReserve = body.max_output_tokens ?? Math.min(model.maxOutputTokens ?? DEFAULT_COMPLETION_RESERVE, DEFAULT_COMPLETION_RESERVE);
  const meter = await Meter.open(dependencies, {
    key: call.key,
    requestId: call.requestId,
    receivedAt,
    stream,
    reserveTokens: quickPromptTokens(translation.request) + completionReserve,
    response,
  });
  if (stream) holdStreamSlot(dependencies.streams, meter, { ...call, body: translation.request });

  const controller = new CallAbort();
  const retry = { maxRetries: dependencies.config.upstream.maxRetries, baseDelayMs: dependencies.config.upstream.retryBaseDelayMs, signal: controller.signal };
  const onEarlyClose = () => controller.abort();
  response.once('close', onEarlyClose);
  const options = { signal: controller.signal, requestId: call.requestId };
  const run = async (attempt: Attempt): Promise<Answer> => {
    if (passesThrough(attempt) && attempt.adapter.responses) {
      return { kind: 'pass', reply: await attempt.adapter.responses(body, attempt.target, { ...options, stream }) };
    }
    if (stream) return { kind: 'stream', stream: await attempt.adapter.chatStream(translation.request, attempt.target, options) };
    return { kind: 'chat', result: await attempt.adapter.chat(translation.request, attempt.target, options) };
  };

  let answered;
  try {
    answered = await timeUpstream(response, () => callWithFallbacks(attempts, observedAttempt(dependencies.metrics, stream, run), retry));
  } catch (error) {
    response.off('close', onEarlyClose);
    const gatewayError = toGatewayError(error, call.requestId, controller.signal.aborted);
    meter.failed(model, gatewayError);
    throw gatewayError;
  }
  const { value, attempt } = answered;
  response.locals.model = attempt.model.id;
  response.locals.provider = attempt.model.provider;
  if (value.kind !== 'pass') announceDroppedTools(response, translation);
  const finish = (usage: TokenUsage | null, fallbackText: string, status = 200, errorCode: string | null = null) => {
    const counted = usage ?? { promptTokens: promptEstimate(), completionTokens: countTextTokens(fallbackText) };
    meter.finish({ model: attempt.model, ...counted, estimated: usage === null, status, errorCode });
  };

  if (value.kind === 'stream' || (value.kind === 'pass' && stream)) {
    response.off('close', onEarlyClose);
    const events =
      value.kind === 'stream'
        ? translatedEvents(dependencies, body, translation, value.stream, attempt, finish, call.requestId)
        : passedThroughEvents(value.reply, finish, call.requestId);
    sendSse(response, events, () => controller.abort());
    return null;
  }
  try {
    if (value.kind === 'chat') {
      const { completion } = value.result;
      const message = completion.choices[0]?.message;
      const produced = (message?.content ?? '') + (message?.tool_calls ?? []).map((toolCall) => toolCall.function.arguments).join('');
      // The provider's usage, or the gateway's count (the one billed) when it reported none.
      const usage = value.result.usage ?? { promptTokens: promptEstimate(), completionTokens: countTextTokens(produced) };
      completion.model = attempt.model.id;
      meter.finish({ model: attempt.model, ...usage, estimated: value.result.usage === null, status: 200, errorCode: null });
      return chatToResponse(body, completion, usage, translation.customTools, dependencies);
    }
    const text = await value.reply.text();
    const usage = usageOfReplyText(text);
    if (text.length === 0) throw badResponse(attempt.model.provider, 'an empty body');
    finish(usage, text);
    response.statusCode = 200;
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(text));
    response.end(text);
    return null;
  } catch (error) {
    const gatewayError = toGatewayError(error, call.requestId, controller.signal.aborted);
    meter.failed(model, gatewayError);
    throw gatewayError;
  } finally {
    response.off('close', onEarlyClose);
  }
}

/** Nothing is stored (docs/openai-responses.md): what would need a stored response is refused by name. */
function checkStateless(body: ResponsesRequest): void {
  if (body.previous_response_id) {
    throw invalidRequest(
      'unsupported_parameter',
      'previous_response_id is not supported: this gateway stores no responses. Send the whole conversation in `input`.',
      'previous_response_id',
    );
  }
  if (Array.isArray(body.input)) {
    body.input.forEach((item, index) => {
      if ('type' in item && item.type === 'item_reference') {
        throw invalidRequest('unsupported_parameter', 'Item references are not supported: this gateway stores no responses. Send the items themselves.', `input[${index}]`);
      }
    });
  }
}

function announceDroppedTools(response: Response, translation: ChatTranslation): void {
  if (translation.droppedTools.length === 0) return;
  const names = [...new Set(translation.droppedTools)].join(', ');
  response.setHeader('x-gateway-dropped-tools', names);
  response.locals.droppedTools = names;
}

type Finish = (usage: TokenUsage | null, fallbackText: string, status?: number, errorCode?: string | null) => void;

/** Chat chunks -> Responses events; usage recorded however the stream ends. */
async function* translatedEvents(
  dependencies: ResponsesDependencies,
  body: ResponsesRequest,
  translation: ChatTranslation,
  stream: ChatStream,
  attempt: Attempt,
  finish: Finish,
  requestId: string,
): AsyncGenerator<string> {
  const skeleton = responseSkeleton(body, `resp_${dependencies.generateId()}`, attempt.model.id, Math.floor(dependencies.now() / 1000));
  const translator = new ResponseStreamTranslator(skeleton, translation.customTools, dependencies.generateId);
  let reported: TokenUsage | null = null;
  let status = 200;
  let errorCode: string | null = null;
  let completed = false;
  const take = (chunk: ChatCompletionChunk): string => {
    if (chunk.usage) reported = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
    return encodeEvents(translator.push(chunk));
  };
  try {
    yield encodeEvents(translator.start());
    if (stream.batches) {
      for await (const batch of stream.batches) {
        let text = '';
        for (const chunk of batch) text += take(chunk);
        if (text !== '') yield text;
      }
    } else {
      for await (const chunk of stream.chunks) {
        const text = take(chunk);
        if (text !== '') yield text;
      }
    }
    const usage: TokenUsage = reported ?? { promptTokens: promptTokenCounter(translation.request)(), completionTokens: countTextTokens(translator.outputText()) };
    completed = true;
    yield encodeEvents(translator.finish(toResponsesUsage(usage)));
  } catch (error) {
    if (isAbortError(error)) return;
    const gatewayError = toGatewayError(error, requestId, false);
    status = gatewayError.status;
    errorCode = gatewayError.code;
    completed = true;
    yield encodeEvents(translator.fail(gatewayError.code ?? 'server_error', gatewayError.message));
  } finally {
    if (!completed) {
      status = 499;
      errorCode = 'client_closed_request';
    }
    finish(reported, translator.outputText(), status, errorCode);
  }
}

/** The upstream's events as they came; its final event's usage is what is metered. */
async function* passedThroughEvents(reply: HttpResponse, finish: Finish, requestId: string): AsyncGenerator<string> {
  const reader = new PassThroughStreamReader();
  let status = 200;
  let errorCode: string | null = null;
  let completed = false;
  try {
    for await (const bytes of reply.body) {
      const text = reader.read(bytes);
      if (text !== '') yield text;
    }
    const rest = reader.end();
    if (rest !== '') yield rest;
    if (!reader.ended) throw badResponse('upstream', 'an event stream that ended before response.completed');
    completed = true;
  } catch (error) {
    if (isAbortError(error)) return;
    const gatewayError = toGatewayError(error, requestId, false);
    status = gatewayError.status;
    errorCode = gatewayError.code;
    completed = true;
    // OpenAI's `error` event: the stream failed without a final response event.
    yield encodeSseEvent('error', { type: 'error', code: gatewayError.code, message: gatewayError.message, param: null, sequence_number: 0 });
  } finally {
    if (!completed) {
      status = 499;
      errorCode = 'client_closed_request';
    }
    // The whole usage, breakdown (cached, reasoning) included, goes to the meter.
    finish(reader.usage, reader.output, status, errorCode);
  }
}

function encodeEvents(events: StreamEvent[]): string {
  let text = '';
  for (const event of events) text += encodeSseEvent(event.type, event);
  return text;
}
