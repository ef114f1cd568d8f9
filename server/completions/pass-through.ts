import { StringDecoder } from 'node:string_decoder';
import type { ModelConfig } from '../config/load-config';
import { GatewayError, type UpstreamError } from '../errors/gateway-error';
import { timeUpstream } from '../metrics/request-timing';
import type { Reply } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import { UpstreamCall } from './upstream-call';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import { withAttemptTrace } from '../providers/trace-headers';
import { isAbortError } from '../providers/transport-errors';
import type { CallOptions, HttpResponse, TokenUsage } from '../providers/types';
import { badResponse } from '../providers/upstream-errors';
import { splitBeforeLastEvent } from '../streaming/last-event';
import { SseEventScanner } from '../streaming/sse-event-scanner';
import { sendSse } from '../streaming/send-sse';
import { meterOutcome, type Meter } from './meter';
import { observedAttempt } from './observe-upstream';
import type { ChatDependencies } from './chat-call';
import type { Attempt } from './resolve-model';
import { toGatewayError } from './to-gateway-error';

/**
 * The pass-through of a native-format route (docs/architecture.md, "Request path"): the
 * client's request sent to an upstream that speaks its format (/v1/messages to Anthropic,
 * /v1/responses to a Responses API), the reply or stream relayed as it came, its usage read
 * on the way by the format's usage reader. Retries and fallbacks happen before the first
 * byte; the call is metered once, however it ends.
 */

/** What a route's format needs to find its usage in a reply, without changing a byte of it. */
export interface UsageReader {
  /** The `event:` names of the stream events that carry usage or end the reply. */
  readonly eventNames: readonly string[];
  /** One of those events (`name` null: an event without a name, its type in its data). */
  readEvent(name: string | null, data: string): void;
  /** A whole (non-streamed) reply; false when it is not a reply of the format (a bad response). */
  readReply(text: string): boolean;
  /** The tokens to bill, or null when the upstream reported none (the route then estimates). */
  tokens(): TokenUsage | null;
  /** The reply reached its end event. */
  readonly completed: boolean;
  /** An error event the upstream sent: recorded as the call's status (the client gets the event as it came). */
  readonly error: UpstreamError | null;
  /** Why the reply ended, in the format's words, once read (docs/tracing.md: `gen_ai.response.finish_reasons`). */
  readonly finishReason: string | null;
}

export interface PassThroughFormat<A extends Attempt> {
  newReader(attempt: A): UsageReader;
  send(attempt: A, options: CallOptions): Promise<HttpResponse>;
  /** The gateway's count when the upstream reported no usage; `replyText` is the reply (or the stream) as text. */
  estimate(replyText: string): TokenUsage;
  /** The event that tells a streaming client about a failure after the start. */
  errorEvent(error: GatewayError): string;
  /** What a stream that stops before its end event is called in the error. */
  incompleteStream: string;
}

export interface PassThroughRun<A extends Attempt> {
  context: RequestContext;
  reply: Reply;
  stream: boolean;
  /** The requested model (named in the usage event when no upstream answered). */
  model: ModelConfig;
  meter: Meter;
  attempts: readonly A[];
  format: PassThroughFormat<A>;
}

/** Longest stream text kept for the gateway's count when the upstream reports no usage (characters). */
const MAX_KEPT_STREAM_TEXT = 4_000_000;

export async function runNativePassThrough<A extends Attempt>(
  dependencies: Pick<ChatDependencies, 'config' | 'metrics'>,
  run: PassThroughRun<A>,
): Promise<void> {
  const { context, reply, meter, format, stream } = run;
  const upstream = new UpstreamCall(dependencies.config.upstream, context, reply);
  const { controller, retry, options } = upstream;
  let answered;
  try {
    answered = await timeUpstream(context, () =>
      callWithFallbacks(
        run.attempts,
        observedAttempt(dependencies.metrics, context, stream, async (attempt: A, trace) => {
          const response = await format.send(attempt, withAttemptTrace(options, trace));
          if (stream) return { response, text: null, usage: null, finishReason: null };
          const text = await response.text();
          const reader = format.newReader(attempt);
          if (!reader.readReply(text)) throw badResponse(attempt.deployment.provider, 'a reply of an unexpected shape');
          return { response, text, usage: reader.tokens(), finishReason: reader.finishReason };
        }),
        retry,
      ),
    );
  } catch (error) {
    throw meter.callFailed(run.model, error, context.requestId, controller.signal.aborted);
  } finally {
    upstream.release();
  }
  const { value, attempt } = answered;
  context.model = attempt.model.id;
  context.provider = attempt.deployment.provider;
  if (value.text !== null) {
    if (value.finishReason !== null) context.trace?.passedThrough(value.finishReason);
    const usage = value.usage ?? format.estimate(value.text);
    // docs/usage-durability.md: the reply goes out once its usage would survive a crash.
    await meter.finish(meterOutcome(attempt.model, usage, value.usage === null, 200, null));
    reply.sendJson(200, value.text);
    return;
  }
  sendSse(reply, relay(run, value.response, attempt), () => controller.abort());
}

/**
 * The upstream's bytes as text, unchanged, while the reader picks the usage out of the events
 * that carry it (the others are not parsed: SseEventScanner).
 */
async function* relay<A extends Attempt>(run: PassThroughRun<A>, upstream: HttpResponse, attempt: A): AsyncGenerator<string> {
  const { format, meter } = run;
  const reader = format.newReader(attempt);
  const scanner = new SseEventScanner(reader.eventNames, (name, data) => reader.readEvent(name, data));
  const decoder = new StringDecoder('utf8');
  // The stream's text, kept (up to a bound) only for the count when the upstream reports no usage.
  const kept: string[] = [];
  let keptLength = 0;
  const pass = (text: string): string => {
    scanner.scan(text);
    if (keptLength < MAX_KEPT_STREAM_TEXT) {
      kept.push(text);
      keptLength += text.length;
    }
    return text;
  };
  let status = 200;
  let errorCode: string | null = null;
  let ended = false;
  const finish = (): Promise<void> => {
    if (reader.finishReason !== null) run.context.trace?.passedThrough(reader.finishReason);
    const usage = reader.tokens();
    return meter.finish(meterOutcome(attempt.model, usage ?? format.estimate(kept.join('')), usage === null, status, errorCode));
  };
  /** From the read that completes the end event on: sent once the usage is durable. */
  let held = '';
  try {
    for await (const bytes of upstream.body) {
      const text = pass(decoder.write(bytes));
      if (reader.completed && held === '') {
        // docs/usage-durability.md: the end event waits for the usage; the events before it go out.
        const [before, last] = splitBeforeLastEvent(text);
        held = last;
        if (before.length > 0) yield before;
      } else if (reader.completed) held += text;
      else if (text.length > 0) yield text;
    }
    const rest = pass(decoder.end());
    scanner.end();
    if (reader.completed) held += rest;
    else if (rest.length > 0) yield rest;
    ended = true;
    if (reader.error) {
      status = reader.error.status;
      errorCode = reader.error.code;
    } else if (!reader.completed) {
      // The upstream stopped before its end event: the client learns it from an error event.
      const error = badResponse(attempt.deployment.provider, format.incompleteStream);
      status = error.status;
      errorCode = error.code;
      yield format.errorEvent(error);
    }
  } catch (error) {
    ended = true;
    held = '';
    if (isAbortError(error)) {
      status = 499;
      errorCode = 'client_closed_request';
      return;
    }
    const gatewayError = toGatewayError(error, run.context.requestId, false);
    status = gatewayError.status;
    errorCode = gatewayError.code;
    yield format.errorEvent(gatewayError);
  } finally {
    // Also reached when the client went away (the generator is closed at a yield).
    if (!ended && status === 200) {
      status = 499;
      errorCode = 'client_closed_request';
    }
    // A complete reply's usage is recorded below, before its end event. Here nothing waits:
    // the meter's `finish` handles its own rejection.
    if (held.length === 0) void finish();
  }
  if (held.length === 0) return;
  // docs/usage-durability.md: the end event goes out once the usage would survive a crash.
  try {
    await finish();
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    yield format.errorEvent(error);
    return;
  }
  yield held;
}
