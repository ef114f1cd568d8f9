import { StringDecoder } from 'node:string_decoder';
import { toMessagesErrorBody } from '../errors/anthropic-error-body';
import { isAbortError } from '../providers/http-client';
import type { HttpResponse, TokenUsage } from '../providers/types';
import { badResponse } from '../providers/upstream-errors';
import { SseDecoder } from '../streaming/parse-sse';
import { sendSse } from '../streaming/send-sse';
import { toGatewayError } from '../completions/to-gateway-error';
import type { MessageCallContext, MessageReply, NativeAttempt } from './create-message';
import { event } from './message-stream-events';
import { MessageUsageReader } from './message-usage-reader';

/**
 * The pass-through of POST /v1/messages to an Anthropic-type upstream (docs/anthropic-messages.md):
 * the client's body with only `model` replaced, the reply or stream sent back as received,
 * its usage read on the way (MessageUsageReader) for the one usage event of the request.
 * A reply that is not a Message counts as a bad response (retried, then 502) before any byte
 * reaches the client. Without usage in the reply, a quarter of the body's bytes is billed as
 * input and a quarter of the reply's as output, flagged as estimated.
 */
export async function passThroughMessage(context: MessageCallContext, attempts: readonly NativeAttempt[]): Promise<MessageReply> {
  const { call, meter } = context;
  const options = { signal: context.controller.signal, requestId: call.requestId, ...call.headers };

  if (!context.stream) {
    const { value, attempt } = await context.callUpstream(attempts, async (entry) => {
      const response = await entry.native.create(call.raw, entry.target, options);
      const text = await response.text();
      const reader = new MessageUsageReader(entry.model.provider);
      if (!reader.readMessage(text)) throw badResponse(entry.model.provider, 'a reply that is not a Message');
      return { text, usage: reader.tokens() };
    });
    const usage = value.usage ?? estimate(call.bodyBytes, value.text.length);
    meter.finish({ model: attempt.model, ...usage, estimated: value.usage === null, status: 200, errorCode: null });
    return { json: value.text };
  }

  const { value: upstream, attempt } = await context.callUpstream(attempts, (entry) => entry.native.create(call.raw, entry.target, options));
  sendSse(call.response, relay(context, upstream, attempt), () => context.controller.abort());
  return null;
}

/** The upstream's bytes as text, unchanged, while the usage is read from the events they carry. */
async function* relay(context: MessageCallContext, upstream: HttpResponse, attempt: NativeAttempt): AsyncGenerator<string> {
  const { meter } = context;
  const reader = new MessageUsageReader(attempt.model.provider);
  const events = new SseDecoder();
  const text = new StringDecoder('utf8');
  let replyBytes = 0;
  let status = 200;
  let errorCode: string | null = null;
  let ended = false;
  try {
    for await (const bytes of upstream.body) {
      replyBytes += bytes.length;
      for (const sse of events.decode(bytes)) reader.readEvent(sse);
      const chunk = text.write(bytes as Buffer);
      if (chunk.length > 0) yield chunk;
    }
    for (const sse of events.end()) reader.readEvent(sse);
    const rest = text.end();
    if (rest.length > 0) yield rest;
    ended = true;
    if (reader.error) {
      status = reader.error.status;
      errorCode = reader.error.code;
    } else if (!reader.completed) {
      // The upstream stopped before message_stop: the client learns it from an error event.
      const error = badResponse(attempt.model.provider, 'a stream that ended before the reply was complete');
      status = error.status;
      errorCode = error.code;
      yield event(toMessagesErrorBody(error));
    }
  } catch (error) {
    ended = true;
    if (isAbortError(error)) {
      status = 499;
      errorCode = 'client_closed_request';
      return;
    }
    const gatewayError = toGatewayError(error, context.call.requestId, false);
    status = gatewayError.status;
    errorCode = gatewayError.code;
    yield event(toMessagesErrorBody(gatewayError));
  } finally {
    // Also reached when the client went away (the generator is closed at a yield).
    if (!ended && status === 200) {
      status = 499;
      errorCode = 'client_closed_request';
    }
    const usage = reader.tokens();
    meter.finish({ model: attempt.model, ...(usage ?? estimate(context.call.bodyBytes, replyBytes)), estimated: usage === null, status, errorCode });
  }
}

function estimate(bodyBytes: number, replyBytes: number): TokenUsage {
  return { promptTokens: Math.ceil(bodyBytes / 4), completionTokens: Math.ceil(replyBytes / 4) };
}
