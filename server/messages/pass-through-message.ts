import type { ModelConfig } from '../config/load-config';
import type { Meter } from '../completions/meter';
import { runNativePassThrough, type PassThroughFormat } from '../completions/pass-through';
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
 * (retried, then 502). Without usage in the reply, the prompt's count and a quarter of the
 * reply's characters are billed, flagged as estimated.
 */
export async function passThroughMessage(dependencies: MessagesDependencies, call: MessagesCall, passThrough: PassThrough): Promise<void> {
  const body = call.body as Record<string, unknown>;
  const format: PassThroughFormat<NativeAttempt> = {
    newReader: (attempt) => new MessageUsageReader(attempt.deployment.provider),
    send: (attempt, options) => attempt.native.create(body, attempt.target, { ...options, ...passThrough.headers }),
    estimate: (replyText) => ({ promptTokens: passThrough.promptTokens(), completionTokens: Math.ceil(replyText.length / 4) }),
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
