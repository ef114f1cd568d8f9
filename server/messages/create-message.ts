import type { Response } from 'express';
import type { CountTokensRequest, MessagesRequest } from '../../contract';
import type { ModelConfig } from '../config/load-config';
import { holdStreamSlot, type ChatDependencies } from '../completions/chat-completion';
import { Meter } from '../completions/meter';
import { observedAttempt } from '../completions/observe-upstream';
import { attemptsFor, checkChatCapabilities, resolveModel, type Attempt } from '../completions/resolve-model';
import { toGatewayError } from '../completions/to-gateway-error';
import { UpstreamError } from '../errors/gateway-error';
import type { CachedApiKey } from '../keys/key-cache';
import { timeUpstream } from '../metrics/request-timing';
import { CallAbort } from '../providers/call-signal';
import { callWithFallbacks, type RetryOptions } from '../providers/call-with-fallbacks';
import type { NativeMessagesApi, NativeMessagesHeaders } from '../providers/types';
import { estimatePromptTokens } from '../usage/count-tokens';
import { messagesToChat } from './messages-to-chat';
import { passThroughMessage } from './pass-through-message';
import { translatedMessage } from './translated-message';

export interface MessagesDependencies extends ChatDependencies {
  generateId: () => string;
}

export interface MessagesCall {
  /** The validated body (what the translated path reads). */
  body: MessagesRequest;
  /** The body as the client sent it (what the pass-through forwards, unknown fields included). */
  raw: Record<string, unknown>;
  /** The request body's size in bytes: the pass-through's quick token estimate. */
  bodyBytes: number;
  headers: NativeMessagesHeaders;
  key: CachedApiKey;
  requestId: string;
  response: Response;
}

/** What the route sends: a JSON text, or null when the handler already streams the reply. */
export type MessageReply = { json: string } | null;

/** An Anthropic-type attempt, with its Messages API (the pass-through's targets). */
export type NativeAttempt = Attempt & { native: NativeMessagesApi };

/** The pieces both paths share: the attempts, the meter, the abort and retry settings. */
export interface MessageCallContext {
  dependencies: MessagesDependencies;
  call: MessagesCall;
  model: ModelConfig;
  meter: Meter;
  controller: CallAbort;
  retry: RetryOptions;
  stream: boolean;
  /** Runs the retry and fallback loop over `attempts`, timed and observed like the chat route's. */
  callUpstream<A extends Attempt, T>(attempts: readonly A[], run: (attempt: A) => Promise<T>): Promise<{ value: T; attempt: A }>;
}

/**
 * POST /v1/messages (docs/anthropic-messages.md): to an Anthropic-type model the request goes
 * as it came (pass-through), to any other it is translated to the chat core's request and the
 * reply back. Limits, usage (once per request), fallbacks, stream caps and cancellation as on
 * the chat route.
 */
export async function createMessage(dependencies: MessagesDependencies, call: MessagesCall): Promise<MessageReply> {
  const { body, response } = call;
  const receivedAt = dependencies.now();
  const stream = body.stream === true;
  const model = resolveModel(dependencies.catalogue, body.model, 'chat');
  response.locals.model = model.id;
  response.locals.provider = model.provider;
  response.locals.stream = stream;
  const attempts = attemptsFor(dependencies.catalogue, model, dependencies.config, (name) => dependencies.providers.get(name));
  const native = nativeAttempts(attempts);
  // Anthropic-type first choice: pass-through, over the Anthropic-type models of its fallbacks.
  const translated = speaksMessages(attempts) ? null : messagesToChat(body, stream);
  if (translated) checkChatCapabilities(model, translated);

  const meter = await Meter.open(dependencies, {
    key: call.key,
    requestId: call.requestId,
    receivedAt,
    stream,
    // Reserved on a quick estimate (a token per 4 bytes of the body), reconciled with the usage.
    reserveTokens: Math.ceil(call.bodyBytes / 4) + body.max_tokens,
    response,
  });
  if (stream) holdStreamSlot(dependencies.streams, meter, call);

  const controller = new CallAbort();
  const context: MessageCallContext = {
    dependencies,
    call,
    model,
    meter,
    controller,
    stream,
    retry: { maxRetries: dependencies.config.upstream.maxRetries, baseDelayMs: dependencies.config.upstream.retryBaseDelayMs, signal: controller.signal },
    async callUpstream(targets, run) {
      // Until the reply starts, a client that goes away cancels the upstream work too.
      const onEarlyClose = () => controller.abort();
      response.once('close', onEarlyClose);
      try {
        const result = await timeUpstream(response, () => callWithFallbacks(targets, observedAttempt(dependencies.metrics, stream, run), context.retry));
        response.locals.model = result.attempt.model.id;
        response.locals.provider = result.attempt.model.provider;
        return result;
      } catch (error) {
        const gatewayError = toGatewayError(error, call.requestId, controller.signal.aborted);
        meter.failed(model, gatewayError);
        throw gatewayError;
      } finally {
        response.off('close', onEarlyClose);
      }
    },
  };
  return translated === null ? passThroughMessage(context, native) : translatedMessage(context, translated, attempts);
}

function speaksMessages(attempts: readonly Attempt[]): boolean {
  return attempts[0]?.adapter.messages !== undefined;
}

function nativeAttempts(attempts: readonly Attempt[]): NativeAttempt[] {
  return attempts.flatMap((attempt) => (attempt.adapter.messages ? [{ ...attempt, native: attempt.adapter.messages }] : []));
}

export interface CountTokensCall {
  body: CountTokensRequest;
  raw: Record<string, unknown>;
  headers: NativeMessagesHeaders;
  key: CachedApiKey;
  requestId: string;
  response: Response;
}

/**
 * POST /v1/messages/count_tokens: the upstream's count for Anthropic-type models, the gateway's
 * tokenizer (o200k, system and tools included) otherwise. It counts as a request against the
 * key's requests per minute, reserves no tokens and records no usage (no model ran).
 */
export async function countMessageTokens(dependencies: MessagesDependencies, call: CountTokensCall): Promise<{ input_tokens: number }> {
  const model = resolveModel(dependencies.catalogue, call.body.model, 'chat');
  call.response.locals.model = model.id;
  call.response.locals.provider = model.provider;
  const meter = await Meter.open(dependencies, {
    key: call.key,
    requestId: call.requestId,
    receivedAt: dependencies.now(),
    stream: false,
    reserveTokens: 0,
    response: call.response,
  });
  meter.cancel();
  const attempts = attemptsFor(dependencies.catalogue, model, dependencies.config, (name) => dependencies.providers.get(name));
  if (!speaksMessages(attempts)) return { input_tokens: tokenizerCount(call.body) };
  const controller = new CallAbort();
  const onEarlyClose = () => controller.abort();
  call.response.once('close', onEarlyClose);
  try {
    const { value } = await callWithFallbacks(
      nativeAttempts(attempts),
      (attempt) => attempt.native.countTokens(call.raw, attempt.target, { signal: controller.signal, requestId: call.requestId, ...call.headers }),
      { maxRetries: dependencies.config.upstream.maxRetries, baseDelayMs: dependencies.config.upstream.retryBaseDelayMs, signal: controller.signal },
    );
    return { input_tokens: value };
  } catch (error) {
    // Anthropic-compatible servers without the count endpoint: the gateway counts instead.
    if (error instanceof UpstreamError && error.upstreamStatus === 404) return { input_tokens: tokenizerCount(call.body) };
    throw toGatewayError(error, call.requestId, controller.signal.aborted);
  } finally {
    call.response.off('close', onEarlyClose);
  }
}

function tokenizerCount(body: CountTokensRequest): number {
  return estimatePromptTokens(messagesToChat({ ...body, max_tokens: 1 }, false));
}
