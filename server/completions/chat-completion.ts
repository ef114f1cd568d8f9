import type { Response } from 'express';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../contract';
import type { Config } from '../config/load-config';
import type { CachedApiKey } from '../keys/key-cache';
import { effectiveLimits } from '../keys/key-access';
import { checkModelAllowed } from '../keys/model-access';
import { checkReservationFits } from '../rate-limit/key-limiter';
import { rateLimited } from '../errors/gateway-error';
import { timeUpstream } from '../metrics/request-timing';
import { CallAbort } from '../providers/call-signal';
import { callWithFallbacks } from '../providers/call-with-fallbacks';
import type { ChatStream } from '../providers/types';
import { isAbortError } from '../providers/http-client';
import { ChunkEventEncoder, encodeSseData, SSE_DONE } from '../streaming/encode-sse';
import { sendSse } from '../streaming/send-sse';
import { countTextTokens, promptTokenCounter, quickPromptTokens } from '../usage/count-tokens';
import { Meter, type MeterDependencies } from './meter';
import { toGatewayError } from './to-gateway-error';
import { attemptsFor, checkChatCapabilities, checkN, resolveModel, type Attempt, type Catalogue } from './resolve-model';
import type { ProviderRegistry } from '../providers/registry';
import type { StreamLimiter } from '../rate-limit/stream-limiter';
import { observedAttempt } from './observe-upstream';

export interface ChatDependencies extends MeterDependencies {
  config: Config;
  catalogue: Catalogue;
  providers: ProviderRegistry;
  streams: StreamLimiter;
}

export interface ChatCall {
  body: ChatCompletionRequest;
  key: CachedApiKey;
  requestId: string;
  response: Response;
}

/** Reserved for the reply when the request sets no max_tokens (docs/rate-limits.md). */
const DEFAULT_COMPLETION_RESERVE = 4096;

/**
 * POST /v1/chat/completions: validation beyond the schema, limits, the call, usage. Returns
 * the completion to send, or null for a stream, whose reply is then already under way.
 */
export async function createChatCompletion(dependencies: ChatDependencies, call: ChatCall): Promise<ChatCompletion | null> {
  const { body, response } = call;
  const receivedAt = dependencies.now();
  const model = resolveModel(dependencies.catalogue, body.model, 'chat');
  checkModelAllowed(call.key, model.id);
  // Metrics and the access log name the requested model until another one answers.
  response.locals.model = model.id;
  response.locals.provider = model.provider;
  response.locals.stream = body.stream === true;
  checkChatCapabilities(model, body);
  const attempts = attemptsFor(dependencies.catalogue, model, dependencies.config, (name) => dependencies.providers.get(name));
  checkN(attempts[0]?.providerType ?? 'unknown', model, body.n);

  // Reserved on a quick estimate; the tokenizer runs only if the provider reports no usage.
  const promptEstimate = promptTokenCounter(body);
  const completionReserve = body.max_completion_tokens ?? body.max_tokens ?? Math.min(model.maxOutputTokens ?? DEFAULT_COMPLETION_RESERVE, DEFAULT_COMPLETION_RESERVE);
  checkReservationFits(effectiveLimits(call.key, dependencies.limits).tpm, quickPromptTokens(body), completionReserve, { prompt: 'messages', completion: body.max_completion_tokens === undefined || body.max_completion_tokens === null ? 'max_tokens' : 'max_completion_tokens' });
  const meter = await Meter.open(dependencies, {
    key: call.key,
    requestId: call.requestId,
    receivedAt,
    stream: body.stream === true,
    reserveTokens: quickPromptTokens(body) + completionReserve,
    response,
  });
  if (body.stream === true) holdStreamSlot(dependencies.streams, meter, call);

  const controller = new CallAbort();
  const retry = {
    maxRetries: dependencies.config.upstream.maxRetries,
    baseDelayMs: dependencies.config.upstream.retryBaseDelayMs,
    signal: controller.signal,
  };
  // Until the reply starts, a client that goes away cancels the upstream work too.
  const onEarlyClose = () => controller.abort();
  response.once('close', onEarlyClose);
  const options = { signal: controller.signal, requestId: call.requestId };

  if (body.stream !== true) {
    try {
      const { value, attempt } = await timeUpstream(response, () =>
        callWithFallbacks(attempts, observedAttempt(dependencies.metrics, false, (entry: Attempt) => entry.adapter.chat(body, entry.target, options)), retry),
      );
      const completion = value.completion;
      const usage = value.usage ?? {
        promptTokens: promptEstimate(),
        completionTokens: completion.choices.reduce((sum, choice) => sum + countTextTokens(choice.message.content ?? ''), 0),
      };
      completion.model = attempt.model.id;
      completion.usage = {
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.promptTokens + usage.completionTokens,
      };
      meter.finish({ model: attempt.model, ...usage, estimated: value.usage === null, status: 200, errorCode: null });
      response.locals.model = attempt.model.id;
      response.locals.provider = attempt.model.provider;
      return completion;
    } catch (error) {
      const gatewayError = toGatewayError(error, call.requestId, controller.signal.aborted);
      meter.failed(model, gatewayError);
      throw gatewayError;
    } finally {
      response.off('close', onEarlyClose);
    }
  }

  let started;
  try {
    started = await timeUpstream(response, () =>
      callWithFallbacks(attempts, observedAttempt(dependencies.metrics, true, (entry: Attempt) => entry.adapter.chatStream(body, entry.target, options)), retry),
    );
  } catch (error) {
    response.off('close', onEarlyClose);
    const gatewayError = toGatewayError(error, call.requestId, controller.signal.aborted);
    meter.failed(model, gatewayError);
    throw gatewayError;
  }
  response.off('close', onEarlyClose);
  response.locals.model = started.attempt.model.id;
  response.locals.provider = started.attempt.model.provider;
  const includeUsage = body.stream_options?.include_usage === true;
  const events = streamEvents(started.value, started.attempt, includeUsage, meter, promptEstimate, call.requestId);
  sendSse(response, events, () => controller.abort());
  return null;
}

/**
 * `limits.max_streams_per_key`: a slot for the life of the response (released on `close`,
 * which every response emits exactly once, however it ends), or 429 with `retry-after: 1`.
 */
function holdStreamSlot(streams: StreamLimiter, meter: Meter, call: ChatCall): void {
  const release = streams.acquire(call.key.id);
  if (release === null) {
    meter.cancel();
    call.response.locals.rateLimitExceeded = 'streams';
    throw rateLimited(
      `Too many concurrent streams for this API key (at most ${streams.maxPerKey} at once); wait for one to finish, or retry after the time in retry-after.`,
      { 'retry-after': '1' },
    );
  }
  call.response.once('close', release);
}

/**
 * The SSE events of one streamed reply (docs/chat-and-streaming.md): chunks as they come, the usage
 * chunk only when the client asked for it, `[DONE]`; an error after the start becomes an
 * error event. Usage is recorded however it ends, also when the client goes away. The chunks
 * of one upstream read (ChatStream.batches) are encoded into one string, yielded once.
 */
async function* streamEvents(
  stream: ChatStream,
  attempt: Attempt,
  includeUsage: boolean,
  meter: Meter,
  promptEstimate: () => number,
  requestId: string,
): AsyncGenerator<string> {
  let text = '';
  let reported: { promptTokens: number; completionTokens: number } | null = null;
  let status = 200;
  let errorCode: string | null = null;
  let completed = false;
  let last: ChatCompletionChunk | null = null;
  const encoder = new ChunkEventEncoder();
  /** A chunk's event, or '' when the client does not see it; tallies text and usage. */
  const eventOf = (chunk: ChatCompletionChunk): string => {
    chunk.model = attempt.model.id;
    last = chunk;
    if (chunk.usage) {
      reported = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
      if (chunk.choices.length === 0) return includeUsage ? encoder.encode(chunk) : '';
      if (!includeUsage) chunk.usage = undefined;
    }
    for (const choice of chunk.choices) {
      if (choice.delta.content) text += choice.delta.content;
      for (const call of choice.delta.tool_calls ?? []) text += call.function?.arguments ?? '';
    }
    return encoder.encode(chunk);
  };
  try {
    if (stream.batches) {
      for await (const batch of stream.batches) {
        let events = '';
        for (const chunk of batch) events += eventOf(chunk);
        if (events !== '') yield events;
      }
    } else {
      for await (const chunk of stream.chunks) {
        const event = eventOf(chunk);
        if (event !== '') yield event;
      }
    }
    const final = last as ChatCompletionChunk | null;
    if (includeUsage && reported === null && final) {
      // docs/chat-and-streaming.md: a client that asked for usage gets the usage chunk, with the
      // gateway's count (the one billed) when the provider reported none.
      const promptTokens = promptEstimate();
      const completionTokens = countTextTokens(text);
      const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
      yield encodeSseData({ id: final.id, object: 'chat.completion.chunk', created: final.created, model: attempt.model.id, choices: [], usage });
    }
    completed = true;
    yield SSE_DONE;
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
    yield encodeSseData(gatewayError.toBody());
  } finally {
    // Reached on normal end, on error, and when the client went away (the generator is
    // closed at a yield, so neither the loop's end nor the catch ran).
    if (!completed && status === 200) {
      status = 499;
      errorCode = 'client_closed_request';
    }
    const usage = reported ?? { promptTokens: promptEstimate(), completionTokens: countTextTokens(text) };
    meter.finish({ model: attempt.model, ...usage, estimated: reported === null, status, errorCode });
  }
}
