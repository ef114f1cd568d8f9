import type { IncomingHttpHeaders } from 'node:http';
import type { ChatCompletionRequest, CountTokensRequest, CountTokensResponse, MessagesRequest, MessagesResponse } from '../../contract';
import { admit, nativeMessagesApi, passesThrough } from '../completions/admission';
import type { ChatDependencies } from '../completions/chat-call';
import { resolveModel, type Attempt } from '../completions/resolve-model';
import { toGatewayError } from '../completions/to-gateway-error';
import { GatewayError, UpstreamError } from '../errors/gateway-error';
import type { CachedApiKey } from '../keys/key-cache';
import type { Reply } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import { UpstreamCall } from '../completions/upstream-call';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import { withAttemptTrace } from '../providers/trace-headers';
import type { NativeMessagesApi, NativeMessagesHeaders } from '../providers/types';
import { estimatePromptTokens, promptTokenCounter, quickPromptTokens } from '../usage/count-tokens';
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
export async function createMessage(dependencies: MessagesDependencies, call: MessagesCall): Promise<MessagesResponse | null> {
  const model = resolveModel(dependencies.catalogue, call.body.model, 'chat');
  // The translated call is admitted as a chat call (chat-call.ts), its fields named as Messages'.
  if (!passesThrough(dependencies, model, 'messages')) return translatedMessage(dependencies, call);

  const stream = call.body.stream === true;
  const chatForm = promptAsChat(call.body);
  const { attempts, meter: reserving } = admit(dependencies, {
    key: call.key,
    context: call.context,
    client: call.reply,
    model: model.id,
    kind: 'chat',
    upstream: 'messages',
    stream,
    promptTokens: quickPromptTokens(chatForm),
    completionTokens: call.body.max_tokens,
    fields: MESSAGES_FIELDS,
    body: call.body,
  });
  const meter = await reserving;
  // Anthropic-type first choice: pass-through, over the Anthropic-type models of its fallbacks.
  await passThroughMessage(dependencies, call, {
    model,
    meter,
    attempts: nativeAttempts(attempts),
    headers: anthropicHeaders(call.headers),
    promptTokens: promptTokenCounter(chatForm),
  });
  return null;
}

/**
 * The chat request whose token estimate stands for a passed-through request's prompt (the
 * reservation, the count when the upstream reports no usage: docs/rate-limits.md), as for
 * /v1/responses. What the translation would refuse is estimated from its JSON text instead.
 */
function promptAsChat(body: CountTokensRequest): ChatCompletionRequest {
  try {
    return messagesToChat({ ...body, max_tokens: 1 }, false);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const text = JSON.stringify(body.messages) + JSON.stringify(body.system ?? '') + JSON.stringify(body.tools ?? []);
    return { model: body.model, messages: [{ role: 'user', content: text }] };
  }
}

function nativeAttempts(attempts: readonly Attempt[]): NativeAttempt[] {
  return attempts.flatMap((attempt) => {
    const native = nativeMessagesApi(attempt);
    return native ? [{ ...attempt, native }] : [];
  });
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
): Promise<CountTokensResponse> {
  const model = resolveModel(dependencies.catalogue, call.body.model, 'chat');
  const native = passesThrough(dependencies, model, 'messages');
  // A model the key may not use is not counted either (docs/operator-controls.md); nothing is
  // reserved, so no request is too large for it.
  const { attempts, meter: reserving } = admit(dependencies, {
    key: call.key,
    context: call.context,
    client: call.reply,
    model: model.id,
    kind: 'chat',
    upstream: native ? 'messages' : 'chat',
    stream: false,
    promptTokens: 0,
    completionTokens: 0,
    fields: MESSAGES_FIELDS,
    body: call.body,
  });
  const meter = await reserving;
  meter.cancel();
  if (!native) return { input_tokens: tokenizerCount(call.body) };
  const upstream = new UpstreamCall(dependencies.config.upstream, call.context, call.reply);
  const { controller } = upstream;
  const options = { ...upstream.options, ...anthropicHeaders(call.headers) };
  try {
    // docs/tracing.md: the count's upstream call is a client span of the request's trace.
    const { trace } = call.context;
    const { value } = await callWithFallbacks(
      nativeAttempts(attempts),
      (attempt) =>
        trace === null
          ? attempt.native.countTokens(call.body, attempt.target, options)
          : trace.attempt(attempt, false, (headers) =>
              attempt.native.countTokens(call.body, attempt.target, withAttemptTrace(options, headers)),
            ),
      upstream.retry,
    );
    return { input_tokens: value };
  } catch (error) {
    if (error instanceof UpstreamError && error.upstreamStatus === 404) return { input_tokens: tokenizerCount(call.body) };
    throw toGatewayError(error, call.context.requestId, controller.signal.aborted);
  } finally {
    upstream.release();
    // No usage is metered for a count: the deployment's call ends here (docs/routing.md).
    call.context.routeChoice?.done();
  }
}

function tokenizerCount(body: CountTokensRequest): number {
  return estimatePromptTokens(messagesToChat({ ...body, max_tokens: 1 }, false));
}
