import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../contract';
import type { ModelConfig } from '../config/load-config';
import type { CachedApiKey } from '../keys/key-cache';
import { timeUpstream } from '../metrics/request-timing';
import type { ClientConnection } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import type { RequestTrace } from '../tracing/request-trace';
import type { CallAbort } from '../providers/call-signal';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import { isAbortError } from '../providers/transport-errors';
import { reasoningFromEffort } from '../providers/reasoning';
import type { ChatStream, ReasoningRequest, TokenUsage } from '../providers/types';
import { fromChatUsage, toChatUsage } from '../providers/token-usage';
import { withAttemptTrace } from '../providers/trace-headers';
import type { ReservationFields } from '../rate-limit/key-limiter';
import { countTextTokens, promptTokenCounter, quickPromptTokens, quickTextTokens } from '../usage/count-tokens';
import { admit, type AdmissionDependencies } from './admission';
import { meterOutcome, type Meter } from './meter';
import { UpstreamCall } from './upstream-call';
import { observedAttempt } from './observe-upstream';
import { attemptsServingN, checkChatCapabilities, type Attempt } from './resolve-model';
import { toGatewayError } from './to-gateway-error';

/** What a model route's call needs: the admission's (completions/admission.ts). */
export type ChatDependencies = AdmissionDependencies;

/** One chat call, in OpenAI's request format whatever the route's own wire format. */
export interface ChatCall {
  body: ChatCompletionRequest;
  key: CachedApiKey;
  context: RequestContext;
  /** The client: a client that goes away before the reply starts cancels the upstream call. */
  client: ClientConnection;
  /**
   * The route's own names of the prompt and the output limit, for the 400 of a request that
   * can never fit the key's tokens per minute; chat's when absent.
   */
  fields?: ReservationFields;
  /** The reasoning asked for in the route's own terms; absent: the body's `reasoning_effort`, if any. */
  reasoning?: ReasoningRequest;
}

export type ChatResult = { stream: false; completion: ChatCompletion; model: ModelConfig } | { stream: true; chunks: ChatChunkStream };

/** A streamed reply under way, its usage metered however it ends. */
export interface ChatChunkStream {
  /**
   * The chunks of one upstream read at a time, named with the catalogue's model id; the
   * provider's usage chunk included when it sent one. Throws a GatewayError when the upstream
   * fails after the start. Closed early (`return()`), the call counts as cut short by the client.
   */
  batches: AsyncGenerator<ChatCompletionChunk[], void, undefined>;
  /** Usage so far: the provider's when it reported it, else the gateway's count (the one billed). */
  usage(): TokenUsage & { reported: boolean };
  /**
   * Resolves once the call's usage event would survive a crash (docs/usage-durability.md): the
   * stream's last event (`[DONE]`, `message_stop`, `response.completed`) waits for it; rejects
   * with 503 usage_unavailable when it cannot be made so. Call it after `batches` ended.
   */
  recorded(): Promise<void>;
  /** Cancels the upstream call (the client went away). */
  abort(): void;
  model: ModelConfig;
}

/**
 * The chat call every chat-like route runs (docs/architecture.md, "Request path"): admits
 * the call (admission.ts: the model, the limits, the meter), calls the provider with fallbacks
 * and retries, and returns the completion or the chunk stream, with usage recorded exactly once.
 * Rendering (OpenAI's JSON and SSE, or another route's format) is the caller's.
 */
export async function runChatCall(dependencies: ChatDependencies, call: ChatCall): Promise<ChatResult> {
  const { body, context, client } = call;
  const stream = body.stream === true;
  // Reserved on a quick estimate; the tokenizer runs only if the provider reports no usage.
  const admission = admit(dependencies, {
    key: call.key,
    context,
    client,
    model: body.model,
    kind: 'chat',
    upstream: 'chat',
    stream,
    promptTokens: quickPromptTokens(body),
    completionTokens: body.max_completion_tokens ?? body.max_tokens,
    fields: call.fields ?? chatFields(body),
    body,
    check: checkChatRequest,
  });
  const meter = await admission.meter;
  const { model, attempts, promptTokens: quickPrompt } = admission;
  context.trace?.chatRequest(body);
  const promptEstimate = promptTokenCounter(body);

  const upstream = new UpstreamCall(dependencies.config.upstream, context, client);
  const { controller, retry, options } = upstream;
  // docs/chat-and-streaming.md, "Reasoning": sent only to the models that reason.
  const reasoning = call.reasoning ?? reasoningFromEffort(body.reasoning_effort);
  const reasoningOptions = reasoning ? { signal: options.signal, requestId: options.requestId, reasoning } : options;
  const optionsFor = (entry: Attempt) => (entry.model.capabilities.includes('reasoning') ? reasoningOptions : options);

  if (!stream) {
    try {
      const { value, attempt } = await timeUpstream(context, () =>
        callWithFallbacks(
          attempts,
          observedAttempt(dependencies.metrics, context, false, (entry: Attempt, trace) =>
            entry.adapter.chat(body, entry.target, withAttemptTrace(optionsFor(entry), trace)),
          ),
          retry,
        ),
      );
      const completion = value.completion;
      const usage = value.usage ?? {
        promptTokens: promptEstimate(),
        completionTokens: completion.choices.reduce(
          (sum, choice) =>
            sum +
            countTextTokens(
              (choice.message.reasoning_content ?? '') +
                (choice.message.content ?? '') +
                (choice.message.tool_calls ?? []).map((call) => call.function.arguments).join(''),
            ),
          0,
        ),
      };
      completion.model = attempt.model.id;
      completion.usage = toChatUsage(usage);
      context.trace?.completed(completion);
      // docs/usage-durability.md: the reply goes out once its usage would survive a crash.
      await meter.finish(meterOutcome(attempt.model, usage, value.usage === null, 200, null));
      context.model = attempt.model.id;
      context.provider = attempt.deployment.provider;
      return { stream: false, completion, model: attempt.model };
    } catch (error) {
      throw meter.callFailed(model, error, context.requestId, controller.signal.aborted);
    } finally {
      upstream.release();
    }
  }

  let started;
  try {
    started = await timeUpstream(context, () =>
      callWithFallbacks(
        attempts,
        observedAttempt(dependencies.metrics, context, true, (entry: Attempt, trace) =>
          entry.adapter.chatStream(body, entry.target, withAttemptTrace(optionsFor(entry), trace)),
        ),
        retry,
      ),
    );
  } catch (error) {
    upstream.release();
    throw meter.callFailed(model, error, context.requestId, controller.signal.aborted);
  }
  upstream.release();
  context.model = started.attempt.model.id;
  context.provider = started.attempt.deployment.provider;
  return {
    stream: true,
    chunks: new MeteredChunks(started.value, started.attempt, meter, promptEstimate, quickPrompt, context, controller),
  };
}

/** The chat route's names of the prompt and the reply's bound, for a request that can never fit. */
function chatFields(body: ChatCompletionRequest): ReservationFields {
  return body.max_completion_tokens === undefined || body.max_completion_tokens === null ? CHAT_FIELDS : CHAT_COMPLETION_FIELDS;
}

const CHAT_FIELDS: ReservationFields = { prompt: 'messages', completion: 'max_tokens' };
const CHAT_COMPLETION_FIELDS: ReservationFields = { prompt: 'messages', completion: 'max_completion_tokens' };

/** docs/chat-and-streaming.md: the capabilities the request needs, and `n` only on the attempts that have it. */
function checkChatRequest(model: ModelConfig, attempts: readonly Attempt[], body: ChatCompletionRequest): readonly Attempt[] {
  checkChatCapabilities(model, body);
  return attemptsServingN(model, attempts, body.n);
}

/** The chunk stream of one call: text and usage tallied as the chunks pass, metered once at the end. */
class MeteredChunks implements ChatChunkStream {
  readonly batches: AsyncGenerator<ChatCompletionChunk[], void, undefined>;
  readonly model: ModelConfig;
  private text = '';
  private reported: TokenUsage | null = null;
  private durable: Promise<void> | null = null;
  private readonly trace: RequestTrace | null;

  constructor(
    private readonly stream: ChatStream,
    attempt: Attempt,
    private readonly meter: Meter,
    private readonly promptEstimate: () => number,
    /** The prompt's quick estimate, made for the reservation. */
    private readonly quickPrompt: number,
    context: Pick<RequestContext, 'requestId' | 'trace'>,
    private readonly controller: CallAbort,
  ) {
    this.model = attempt.model;
    this.trace = context.trace;
    this.batches = this.read(stream, context.requestId);
  }

  usage(): TokenUsage & { reported: boolean } {
    const reported = this.reported;
    if (reported !== null) return { ...reported, reported: true };
    return { promptTokens: this.promptEstimate(), completionTokens: countTextTokens(this.text), reported: false };
  }

  abort(): void {
    this.controller.abort();
  }

  recorded(): Promise<void> {
    return this.durable ?? Promise.resolve();
  }

  /**
   * A checkpoint's count: the quick estimates of the prompt and the reply so far, as the call's
   * open line has them. The tokenizer every second of a long stream would cost too much, and
   * loading it (~30 MiB of heap) for streams whose provider reports usage would only serve a crash.
   */
  private checkpointUsage(): TokenUsage {
    return this.reported ?? { promptTokens: this.quickPrompt, completionTokens: quickTextTokens(this.text) };
  }

  private tally(batch: ChatCompletionChunk[]): void {
    const modelId = this.model.id;
    this.trace?.chunks(batch);
    for (const chunk of batch) {
      chunk.model = modelId;
      // The adapter's full usage when the chunk's OpenAI shape cannot carry it all (Anthropic's cache writes).
      if (chunk.usage) this.reported = this.stream.usage ?? fromChatUsage(chunk.usage);
      for (const choice of chunk.choices) {
        if (choice.delta.content) this.text += choice.delta.content;
        if (choice.delta.reasoning_content) this.text += choice.delta.reasoning_content;
        for (const toolCall of choice.delta.tool_calls ?? []) this.text += toolCall.function?.arguments ?? '';
      }
    }
  }

  private async *read(stream: ChatStream, requestId: string): AsyncGenerator<ChatCompletionChunk[], void, undefined> {
    let status = 200;
    let errorCode: string | null = null;
    let completed = false;
    try {
      if (stream.batches) {
        for await (const batch of stream.batches) {
          this.tally(batch);
          this.meter.checkpoint(this.model, () => this.checkpointUsage());
          yield batch;
        }
      } else {
        for await (const chunk of stream.chunks) {
          const batch = [chunk];
          this.tally(batch);
          this.meter.checkpoint(this.model, () => this.checkpointUsage());
          yield batch;
        }
      }
      completed = true;
    } catch (error) {
      if (isAbortError(error)) {
        status = 499;
        errorCode = 'client_closed_request';
        return;
      }
      const gatewayError = toGatewayError(error, requestId, false);
      status = gatewayError.status;
      errorCode = gatewayError.code;
      completed = true;
      throw gatewayError;
    } finally {
      // Reached on normal end, on error, and when the reader stopped early (closed at a yield).
      if (!completed && status === 200) {
        status = 499;
        errorCode = 'client_closed_request';
      }
      const reported = this.reported;
      const usage = reported ?? { promptTokens: this.promptEstimate(), completionTokens: countTextTokens(this.text) };
      this.durable = this.meter.finish(meterOutcome(this.model, usage, reported === null, status, errorCode));
    }
  }
}
