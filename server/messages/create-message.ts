import type { IncomingHttpHeaders } from 'node:http';
import type { CountTokensRequest, MessagesRequest } from '../../contract';
import { holdStreamSlot, type ChatDependencies } from '../completions/chat-call';
import { Meter } from '../completions/meter';
import { attemptsFor, resolveModel, type Attempt } from '../completions/resolve-model';
import { toGatewayError } from '../completions/to-gateway-error';
import { UpstreamError } from '../errors/gateway-error';
import { effectiveLimits } from '../keys/key-access';
import type { CachedApiKey } from '../keys/key-cache';
import { checkModelAllowed } from '../keys/model-access';
import type { Reply } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import { UpstreamCall } from '../completions/upstream-call';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import { checkReservationFits } from '../rate-limit/key-limiter';
import type { NativeMessagesApi, NativeMessagesHeaders } from '../providers/types';
import { estimatePromptTokens } from '../usage/count-tokens';
import { messagesToChat } from './messages-to-chat';
import { passThroughMessage } from './pass-through-message';
import { MESSAGES_FIELDS, translatedMessage } from './translated-message';

export interface MessagesDependencies extends ChatDependencies {
  generateId: () => string;
}

/** One call of a Messages route, as the pipeline hands it over (pipeline/model-pipeline.ts). */
export interface MessagesCall<Body = MessagesRequest> {
  /** The validated body: every object of the schema passes unknown keys, so it is also the body as sent. */
  body: Body;
  key: CachedApiKey;
  context: RequestContext;
  reply: Reply;
  headers: IncomingHttpHeaders;
}

/** An Anthropic-type attempt, with its Messages API (the pass-through's targets). */
export type NativeAttempt = Attempt & { native: NativeMessagesApi };

/**
 * POST /v1/messages (docs/anthropic-messages.md): to an Anthropic-type model the request goes
 * as it came (pass-through), to any other it is translated to a chat call (the chat route's
 * core: limits, fallbacks, metering) and the reply back. Returns the JSON reply to send, or
 * null when the reply is already under way.
 */
export async function createMessage(dependencies: MessagesDependencies, call: MessagesCall): Promise<object | null> {
  const model = resolveModel(dependencies.catalogue, call.body.model, 'chat');
  const attempts = attemptsFor(dependencies.catalogue, model, dependencies.config, (name) => dependencies.providers.get(name));
  // The translated call checks the allow-list and the request's size itself (chat-call.ts).
  if (!speaksMessages(attempts)) return translatedMessage(dependencies, call);

  checkModelAllowed(call.key, model.id);
  const stream = call.body.stream === true;
  call.context.model = model.id;
  call.context.provider = model.provider;
  call.context.stream = stream;
  const promptEstimate = passThroughPromptEstimate(call.body);
  checkReservationFits(effectiveLimits(call.key, dependencies.limits).tpm, promptEstimate, call.body.max_tokens, MESSAGES_FIELDS);
  const meter = await Meter.open(dependencies, {
    key: call.key,
    requestId: call.context.requestId,
    receivedAt: dependencies.now(),
    stream,
    reserveTokens: promptEstimate + call.body.max_tokens,
    context: call.context,
    model,
    promptTokens: promptEstimate,
    fields: MESSAGES_FIELDS,
  });
  if (stream) holdStreamSlot(dependencies.streams, meter, { key: call.key, context: call.context, client: call.reply });
  // Anthropic-type first choice: pass-through, over the Anthropic-type models of its fallbacks.
  await passThroughMessage(dependencies, call, {
    model,
    meter,
    attempts: nativeAttempts(attempts),
    headers: anthropicHeaders(call.headers),
  });
  return null;
}

/**
 * The prompt's part of a passed-through request's rate-limit reservation (`max_tokens` is
 * the rest): a token per 4 characters of its prompt (system, messages, tools: the JSON text,
 * as an upper bound), reconciled with the upstream's usage afterwards (docs/rate-limits.md).
 */
/** A quick estimate of the prompt: a quarter token per character of its JSON. */
function passThroughPromptEstimate(body: MessagesRequest): number {
  const promptCharacters =
    JSON.stringify(body.messages).length + JSON.stringify(body.system ?? '').length + JSON.stringify(body.tools ?? []).length;
  return Math.ceil(promptCharacters / 4);
}

function speaksMessages(attempts: readonly Attempt[]): boolean {
  return attempts[0]?.adapter.messages !== undefined;
}

function nativeAttempts(attempts: readonly Attempt[]): NativeAttempt[] {
  return attempts.flatMap((attempt) => (attempt.adapter.messages ? [{ ...attempt, native: attempt.adapter.messages }] : []));
}

/** The client's `anthropic-version` and `anthropic-beta`, passed on to an Anthropic-type upstream. */
function anthropicHeaders(headers: IncomingHttpHeaders): NativeMessagesHeaders {
  const header = (name: string): string | null => {
    const value = headers[name];
    if (Array.isArray(value)) return value.length > 0 ? value.join(',') : null;
    return typeof value === 'string' && value.length > 0 ? value : null;
  };
  return { anthropicVersion: header('anthropic-version'), anthropicBeta: header('anthropic-beta') };
}

/**
 * POST /v1/messages/count_tokens: the upstream's count for Anthropic-type models, the gateway's
 * tokenizer (o200k, system and tools included) otherwise, and also when an Anthropic-compatible
 * upstream has no count endpoint (404). It counts as a request against the key's requests per
 * minute, reserves no tokens and records no usage (no model ran).
 */
export async function countMessageTokens(
  dependencies: MessagesDependencies,
  call: MessagesCall<CountTokensRequest>,
): Promise<{ input_tokens: number }> {
  const model = resolveModel(dependencies.catalogue, call.body.model, 'chat');
  // A model the key may not use is not counted either (docs/operator-controls.md); nothing is
  // reserved, so no request is too large for it.
  checkModelAllowed(call.key, model.id);
  call.context.model = model.id;
  call.context.provider = model.provider;
  const meter = await Meter.open(dependencies, {
    key: call.key,
    requestId: call.context.requestId,
    receivedAt: dependencies.now(),
    stream: false,
    reserveTokens: 0,
    context: call.context,
    model,
    promptTokens: 0,
  });
  meter.cancel();
  const attempts = attemptsFor(dependencies.catalogue, model, dependencies.config, (name) => dependencies.providers.get(name));
  if (!speaksMessages(attempts)) return { input_tokens: tokenizerCount(call.body) };
  const upstream = new UpstreamCall(dependencies.config.upstream, call.context, call.reply);
  const { controller } = upstream;
  const options = { ...upstream.options, ...anthropicHeaders(call.headers) };
  try {
    const { value } = await callWithFallbacks(
      nativeAttempts(attempts),
      (attempt) => attempt.native.countTokens(call.body, attempt.target, options),
      upstream.retry,
    );
    return { input_tokens: value };
  } catch (error) {
    if (error instanceof UpstreamError && error.upstreamStatus === 404) return { input_tokens: tokenizerCount(call.body) };
    throw toGatewayError(error, call.context.requestId, controller.signal.aborted);
  } finally {
    upstream.release();
  }
}

function tokenizerCount(body: CountTokensRequest): number {
  return estimatePromptTokens(messagesToChat({ ...body, max_tokens: 1 }, false));
}
