import type { ModelConfig } from '../config/load-config';
import type { Meter } from '../completions/meter';
import { runNativePassThrough, type PassThroughFormat } from '../completions/pass-through';
import { arrayField, isObject, replyOutputText, stringField, type OutputTextOf } from '../completions/reply-output-text';
import { countTextTokens } from '../usage/count-tokens';
import { toMessagesErrorBody } from '../errors/anthropic-error-body';
import type { NativeMessagesHeaders } from '../providers/types';
import type { MessagesCall, MessagesDependencies, NativeAttempt } from './create-message';
import { event } from './message-stream-events';
import { MessageUsageReader } from './message-usage-reader';

export interface PassThrough {
  /** The requested model (named in the usage event when no upstream answered). */
  model: ModelConfig;
  meter: Meter;
  attempts: readonly NativeAttempt[];
  headers: NativeMessagesHeaders;
  /** The prompt's count when the upstream reports no usage (its chat form's, docs/rate-limits.md). */
  promptTokens: () => number;
}

/**
 * The pass-through of POST /v1/messages to an Anthropic-type upstream (docs/anthropic-messages.md),
 * run by the native pass-through (completions/pass-through.ts): the client's body with only
 * `model` replaced, the reply or stream sent back as received, its usage read on the way
 * (MessageUsageReader). A non-streamed reply that is not a Message counts as a bad response
 * (retried, then 502). Without usage in the reply, the prompt's count and the count of what the
 * reply generated are billed, flagged as estimated (docs/rate-limits.md).
 */
export async function passThroughMessage(dependencies: MessagesDependencies, call: MessagesCall, passThrough: PassThrough): Promise<void> {
  const body = call.body as Record<string, unknown>;
  const format: PassThroughFormat<NativeAttempt> = {
    newReader: (attempt) => new MessageUsageReader(attempt.deployment.provider),
    send: (attempt, options) => attempt.native.create(body, attempt.target, { ...options, ...passThrough.headers }),
    estimate: (replyText) => ({
      promptTokens: passThrough.promptTokens(),
      completionTokens: countTextTokens(replyOutputText(replyText, call.body.stream === true, MESSAGES_OUTPUT_TEXT)),
    }),
    errorEvent: (error) => event(toMessagesErrorBody(error)),
    incompleteStream: 'a stream that ended before the reply was complete',
  };
  await runNativePassThrough(dependencies, {
    context: call.context,
    reply: call.reply,
    stream: call.body.stream === true,
    model: passThrough.model,
    meter: passThrough.meter,
    attempts: passThrough.attempts,
    format,
  });
}

/**
 * Where a Message's generated text is (docs/rate-limits.md, "The reply's estimate"): its text,
 * thinking and tool inputs; in a stream, the content blocks' deltas.
 */
export const MESSAGES_OUTPUT_TEXT: OutputTextOf = {
  reply: (message) =>
    arrayField(message, 'content')
      .map((block) => {
        if (!isObject(block)) return '';
        if (block.type === 'tool_use' || block.type === 'server_tool_use') return JSON.stringify(block.input ?? {});
        return stringField(block, 'text') || stringField(block, 'thinking');
      })
      .join(''),
  event: (event) => {
    if (event.type !== 'content_block_delta' || !isObject(event.delta)) return '';
    return stringField(event.delta, 'text') || stringField(event.delta, 'thinking') || stringField(event.delta, 'partial_json');
  },
};
