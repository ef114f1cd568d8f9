import { StringDecoder } from 'node:string_decoder';
import type { ModelConfig } from '../config/load-config';
import type { Meter } from '../completions/meter';
import { observedAttempt } from '../completions/observe-upstream';
import { toGatewayError } from '../completions/to-gateway-error';
import { toMessagesErrorBody } from '../errors/anthropic-error-body';
import { GatewayError } from '../errors/gateway-error';
import { timeUpstream } from '../metrics/request-timing';
import { CallAbort } from '../providers/call-signal';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import { isAbortError } from '../providers/http-client';
import type { HttpResponse, NativeMessagesHeaders, TokenUsage } from '../providers/types';
import { badResponse } from '../providers/upstream-errors';
import { SseDecoder } from '../streaming/parse-sse';
import { splitBeforeLastEvent } from '../streaming/last-event';
import { sendSse } from '../streaming/send-sse';
import type { MessagesCall, MessagesDependencies, NativeAttempt } from './create-message';
import { event } from './message-stream-events';
import { MessageUsageReader } from './message-usage-reader';

export interface PassThrough {
  /** The requested model (named in the usage event when no upstream answered). */
  model: ModelConfig;
  meter: Meter;
  attempts: readonly NativeAttempt[];
  headers: NativeMessagesHeaders;
}

/**
 * The pass-through of POST /v1/messages to an Anthropic-type upstream (docs/anthropic-messages.md):
 * the client's body with only `model` replaced, the reply or stream sent back as received,
 * its usage read on the way (MessageUsageReader) for the one usage event of the request.
 * Retries and fallbacks happen before the first byte; a non-streamed reply that is not a
 * Message counts as a bad response (retried, then 502). Without usage in the reply, a quarter
 * of the prompt's and of the reply's characters is billed, flagged as estimated.
 */
export async function passThroughMessage(dependencies: MessagesDependencies, call: MessagesCall, passThrough: PassThrough): Promise<void> {
  const { context, reply } = call;
  const { meter, model } = passThrough;
  const stream = call.body.stream === true;
  const controller = new CallAbort();
  const options = { signal: controller.signal, requestId: context.requestId, ...passThrough.headers };
  const retry = {
    maxRetries: dependencies.config.upstream.maxRetries,
    baseDelayMs: dependencies.config.upstream.retryBaseDelayMs,
    signal: controller.signal,
  };
  const body = call.body as Record<string, unknown>;
  // Until the reply starts, a client that goes away cancels the upstream work too.
  const onEarlyClose = () => controller.abort();
  reply.onClose(onEarlyClose);

  let answered;
  try {
    answered = await timeUpstream(context, () =>
      callWithFallbacks(
        passThrough.attempts,
        observedAttempt(dependencies.metrics, stream, async (entry: NativeAttempt) => {
          const response = await entry.native.create(body, entry.target, options);
          if (stream) return { response, text: null, usage: null };
          const text = await response.text();
          const reader = new MessageUsageReader(entry.model.provider);
          if (!reader.readMessage(text)) throw badResponse(entry.model.provider, 'a reply that is not a Message');
          return { response, text, usage: reader.tokens() };
        }),
        retry,
      ),
    );
  } catch (error) {
    const gatewayError = toGatewayError(error, context.requestId, controller.signal.aborted);
    meter.failed(model, gatewayError);
    throw gatewayError;
  } finally {
    reply.offClose(onEarlyClose);
  }
  const { value, attempt } = answered;
  context.model = attempt.model.id;
  context.provider = attempt.model.provider;

  if (value.text !== null) {
    const usage = value.usage ?? estimate(call.body, value.text.length);
    // docs/usage-durability.md: the reply goes out once its usage would survive a crash.
    await meter.finish({ model: attempt.model, ...usage, estimated: value.usage === null, status: 200, errorCode: null });
    reply.sendJson(200, value.text);
    return;
  }
  sendSse(reply, relay(call, meter, value.response, attempt), () => controller.abort());
}

/** The upstream's bytes as text, unchanged, while the usage is read from the events they carry. */
async function* relay(call: MessagesCall, meter: Meter, upstream: HttpResponse, attempt: NativeAttempt): AsyncGenerator<string> {
  const reader = new MessageUsageReader(attempt.model.provider);
  const events = new SseDecoder();
  const text = new StringDecoder('utf8');
  let replyCharacters = 0;
  let status = 200;
  let errorCode: string | null = null;
  let ended = false;
  /** From the read that completes message_stop on: sent once the usage is durable. */
  let held = '';
  const finish = (): Promise<void> => {
    const usage = reader.tokens();
    return meter.finish({
      model: attempt.model,
      ...(usage ?? estimate(call.body, replyCharacters)),
      estimated: usage === null,
      status,
      errorCode,
    });
  };
  try {
    for await (const bytes of upstream.body) {
      for (const sse of events.decode(bytes)) reader.readEvent(sse);
      const chunk = text.write(bytes as Buffer);
      replyCharacters += chunk.length;
      if (reader.completed && held === '') {
        // docs/usage-durability.md: message_stop waits for the usage; the events before it go out.
        const [before, last] = splitBeforeLastEvent(chunk);
        held = last;
        if (before.length > 0) yield before;
      } else if (reader.completed) held += chunk;
      else if (chunk.length > 0) yield chunk;
    }
    for (const sse of events.end()) reader.readEvent(sse);
    held += text.end();
    ended = true;
    if (reader.error) {
      status = reader.error.status;
      errorCode = reader.error.code;
    } else if (!reader.completed) {
      const rest = held;
      held = '';
      if (rest.length > 0) yield rest;
      // The upstream stopped before message_stop: the client learns it from an error event.
      const error = badResponse(attempt.model.provider, 'a stream that ended before the reply was complete');
      status = error.status;
      errorCode = error.code;
      yield event(toMessagesErrorBody(error));
    }
  } catch (error) {
    ended = true;
    held = '';
    if (isAbortError(error)) {
      status = 499;
      errorCode = 'client_closed_request';
      return;
    }
    const gatewayError = toGatewayError(error, call.context.requestId, false);
    status = gatewayError.status;
    errorCode = gatewayError.code;
    yield event(toMessagesErrorBody(gatewayError));
  } finally {
    // Also reached when the client went away (the generator is closed at a yield).
    if (!ended && status === 200) {
      status = 499;
      errorCode = 'client_closed_request';
    }
    // A complete reply's usage is recorded below, before its last event.
    if (held.length === 0) void finish();
  }
  if (held.length === 0) return;
  // docs/usage-durability.md: message_stop goes out once the usage would survive a crash.
  try {
    await finish();
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    yield event(toMessagesErrorBody(error));
    return;
  }
  yield held;
}

function estimate(body: MessagesCall['body'], replyCharacters: number): TokenUsage {
  return { promptTokens: Math.ceil(JSON.stringify(body.messages).length / 4), completionTokens: Math.ceil(replyCharacters / 4) };
}
