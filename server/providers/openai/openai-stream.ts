import type { ChatCompletion, ChatCompletionChunk, ToolCallDelta } from '../../../contract';
import { parseSseBatches, type SseEvent } from '../../streaming/parse-sse';
import { chunkWith, type ChunkHeader } from '../chat-stream';
import type { HttpResponse, ModelTarget, TokenUsage } from '../types';
import { badResponse, parseJson } from '../upstream-errors';
import { ContentChunkTemplate } from './content-chunk-template';
import { argumentsText, contentText, createdSeconds, reasoningText, toTokenUsage, type ReplyIds } from './convert-openai-response';
import { toChatUsage } from '../token-usage';
import { mapOpenAiFinishReason } from './map-openai-finish-reason';
import { isErrorEvent, openAiStreamError } from './openai-error';
import { parseOpenAiChunk } from './openai-guards';
import type { OpenAiChunk, OpenAiToolCallDelta } from './openai-schemas';

export interface StreamContext {
  provider: string;
  apiKey: string;
  target: ModelTarget;
  ids: ReplyIds;
}

type Choice = ChatCompletionChunk['choices'][number];

interface ChoiceState {
  roleSent: boolean;
  finished: boolean;
  nextToolIndex: number;
  lastToolIndex: number;
}

/**
 * Upstream SSE body -> the gateway's chunks (https://platform.openai.com/docs/api-reference/chat/streaming).
 * Evens out what compatible servers do differently: missing `id`/`object`/`created` are filled
 * (one id for the whole stream), the first delta of each choice gets `role: 'assistant'`,
 * usage sent on a content chunk (or on every chunk) becomes one `choices: []` chunk at the end,
 * tool-call deltas without `index` get one, choices the upstream never finished are finished
 * with 'stop' after `[DONE]`, and `data: {"error": …}` events are thrown as UpstreamErrors
 * (after the chunks that came before them). Yields the chunks of one read of the body
 * together (chat-stream.ts). Returning early closes the iterator chain down to the socket,
 * which frees the upstream.
 */
export async function* openAiChunkBatches(
  response: Pick<HttpResponse, 'body' | 'finish'>,
  context: StreamContext,
): AsyncGenerator<ChatCompletionChunk[]> {
  const stream = new OpenAiStreamMapper(context);
  for await (const events of parseSseBatches(response.body)) {
    const batch: ChatCompletionChunk[] = [];
    try {
      for (const event of events) {
        const chunk = stream.map(event);
        if (chunk) batch.push(chunk);
        if (stream.done) break;
      }
    } catch (error) {
      if (batch.length > 0) yield batch;
      throw error;
    }
    if (stream.done) {
      // Whatever follows `[DONE]` is not read: the body ends in the background, its connection kept.
      response.finish();
      if (batch.length > 0) yield batch;
      break;
    }
    if (batch.length > 0) yield batch;
  }
  const last = stream.end();
  if (last.length > 0) yield last;
}

/** One stream's state: maps its events one at a time (synchronously), then ends it. */
class OpenAiStreamMapper {
  private readonly choices = new Map<number, ChoiceState>();
  private header: ChunkHeader | null = null;
  private fingerprint: string | null = null;
  private usage: TokenUsage | null = null;
  /** Content deltas read without JSON.parse once one was mapped (content-chunk-template.ts). */
  private template: ContentChunkTemplate | null = null;
  private templateAttempts = 0;
  /** `[DONE]` was seen: nothing after it is read. */
  done = false;

  constructor(private readonly context: StreamContext) {}

  /** The chunk an event becomes; null for events that carry no choice to forward now. */
  map(event: SseEvent): ChatCompletionChunk | null {
    if (this.template !== null && this.header !== null && event.event === null) {
      const content = this.template.contentOf(event.data);
      if (content !== null) return this.chunk(this.header, [this.template.choice(content)]);
    }
    const { provider, apiKey, target, ids } = this.context;
    const data = event.data.trim();
    if (data === '[DONE]') {
      this.done = true;
      return null;
    }
    if (data === '') return null;
    const json = parseJson(event.data);
    if (event.event === 'error' || (json.ok && isErrorEvent(json.value))) {
      throw openAiStreamError(json.ok ? json.value : { error: event.data }, provider, apiKey);
    }
    if (!json.ok) throw badResponse(provider, 'a stream event that is not JSON');
    const parsed = parseOpenAiChunk(json.value);
    if (!parsed.success) throw badResponse(provider, 'a stream event that is not a chat completion chunk');
    const chunk = parsed.data;

    this.fingerprint = chunk.system_fingerprint ?? this.fingerprint;
    // Servers that repeat usage on every chunk send running totals: the last one counts.
    const reported = chunk.usage ?? chunk.x_groq?.usage;
    if (reported) this.usage = toTokenUsage(reported) ?? this.usage;

    const upstreamChoices = chunk.choices ?? [];
    // Usage-only chunks carry no choice to forward now, nor does Azure's first chunk (its
    // prompt filter results, with an empty id and `created: 0`): the header comes from a
    // chunk with choices.
    if (upstreamChoices.length === 0) return null;
    const header = (this.header ??= {
      id: chunk.id || `chatcmpl-${ids.generateId()}`,
      object: 'chat.completion.chunk',
      created: createdSeconds(chunk.created, ids),
      model: target.id,
    });
    const mapped: Choice[] = [];
    for (let position = 0; position < upstreamChoices.length; position++) {
      const choice = toChoice(upstreamChoices[position] as NonNullable<OpenAiChunk['choices']>[number], position, this.choices);
      if (choice) mapped.push(choice);
    }
    // Only annotations for choices that already finished (Azure's content filter results).
    if (mapped.length === 0) return null;
    const next = this.chunk(header, mapped);
    if (this.template === null && this.templateAttempts < MAX_TEMPLATE_ATTEMPTS && event.event === null) {
      this.templateAttempts++;
      this.template = ContentChunkTemplate.learn(event.data, next);
    }
    return next;
  }

  /** A chunk of these choices, with the upstream's latest system fingerprint. */
  private chunk(header: ChunkHeader, choices: Choice[]): ChatCompletionChunk {
    const chunk = chunkWith(header, choices);
    if (this.fingerprint) chunk.system_fingerprint = this.fingerprint;
    return chunk;
  }

  /** After the last event: finishes the choices left open, then the usage chunk. */
  end(): ChatCompletionChunk[] {
    const { provider, target, ids } = this.context;
    const choices = this.choices;
    const anyFinished = [...choices.values()].some((state) => state.finished);
    if (!this.done && !anyFinished) throw badResponse(provider, 'a stream that ended before the reply was complete');
    const header = this.header ?? {
      id: `chatcmpl-${ids.generateId()}`,
      object: 'chat.completion.chunk',
      created: createdSeconds(null, ids),
      model: target.id,
    };

    // The route relies on every choice ending with a finish_reason (docs/chat-and-streaming.md).
    if (choices.size === 0) choices.set(0, newChoiceState());
    const unfinished: Choice[] = [];
    for (const [index, state] of choices) {
      if (!state.finished) unfinished.push({ index, delta: state.roleSent ? {} : { role: 'assistant' }, finish_reason: 'stop' });
    }
    const last: ChatCompletionChunk[] = [];
    if (unfinished.length > 0) last.push(chunkWith(header, unfinished));
    if (this.usage) last.push(chunkWith(header, [], toChatUsage(this.usage)));
    return last;
  }
}

/** Events that could have given a stream its content template (content-chunk-template.ts) before it stops trying. */
const MAX_TEMPLATE_ATTEMPTS = 4;

function newChoiceState(): ChoiceState {
  return { roleSent: false, finished: false, nextToolIndex: 0, lastToolIndex: 0 };
}

/**
 * One upstream choice as the client gets it; null for a choice that already finished and
 * brings nothing more (Azure sends its content filter's results for a choice after its
 * finish_reason): nothing follows a choice's finish_reason (docs/chat-and-streaming.md).
 */
function toChoice(choice: NonNullable<OpenAiChunk['choices']>[number], position: number, choices: Map<number, ChoiceState>): Choice | null {
  const index = choice.index ?? position;
  let state = choices.get(index);
  if (!state) {
    state = newChoiceState();
    choices.set(index, state);
  } else if (state.finished && !choice.finish_reason && isEmptyDelta(choice.delta)) {
    return null;
  }
  const delta: Choice['delta'] = {};
  if (!state.roleSent) {
    delta.role = 'assistant';
    state.roleSent = true;
  }
  const reasoning = choice.delta ? reasoningText(choice.delta) : '';
  if (reasoning) delta.reasoning_content = reasoning;
  const content = contentText(choice.delta?.content);
  if (content !== null) delta.content = content;
  const toolCalls = choice.delta?.tool_calls?.map((call) => toToolCallDelta(call, state));
  if (toolCalls?.length) delta.tool_calls = toolCalls;
  if (choice.delta?.refusal) delta.refusal = choice.delta.refusal;
  const finishReason = choice.finish_reason ? mapOpenAiFinishReason(choice.finish_reason) : null;
  if (finishReason) state.finished = true;
  const mapped: Choice = { index, delta, finish_reason: finishReason };
  if (choice.logprobs !== undefined) mapped.logprobs = choice.logprobs;
  return mapped;
}

function isEmptyDelta(delta: NonNullable<OpenAiChunk['choices']>[number]['delta']): boolean {
  if (!delta) return true;
  return !delta.content && !delta.tool_calls?.length && !delta.refusal && !reasoningText(delta);
}

/**
 * OpenAI streams each tool call as a first delta with `index`, `id`, `type` and `name`, then
 * argument fragments with the same `index`. Servers that leave out `index` get one: a delta
 * with an `id` starts the next call, one without continues the last.
 */
function toToolCallDelta(call: OpenAiToolCallDelta, state: ChoiceState): ToolCallDelta {
  const index = call.index ?? (call.id ? state.nextToolIndex : state.lastToolIndex);
  state.lastToolIndex = index;
  state.nextToolIndex = Math.max(state.nextToolIndex, index + 1);
  const result: ToolCallDelta = { index };
  if (call.id) result.id = call.id;
  if (call.type || call.id) result.type = 'function';
  const name = call.function?.name;
  const args = call.function?.arguments;
  if (name || (args !== null && args !== undefined)) {
    result.function = { ...(name ? { name } : {}), ...(args !== null && args !== undefined ? { arguments: argumentsText(args) } : {}) };
  }
  return result;
}

/**
 * A whole completion as chunks, for servers that answer `stream: true` with plain JSON:
 * one chunk per choice with everything, then the usage chunk.
 */
export function* completionToChunks(completion: ChatCompletion, usage: TokenUsage | null): Generator<ChatCompletionChunk> {
  const header = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
  for (const choice of completion.choices) {
    const delta: Choice['delta'] = { role: 'assistant' };
    if (choice.message.reasoning_content) delta.reasoning_content = choice.message.reasoning_content;
    if (choice.message.content !== null) delta.content = choice.message.content;
    if (choice.message.tool_calls?.length) {
      delta.tool_calls = choice.message.tool_calls.map((call, index) => ({ index, ...call }));
    }
    if (choice.message.refusal) delta.refusal = choice.message.refusal;
    yield chunkWith(header, [{ index: choice.index, delta, finish_reason: choice.finish_reason }]);
  }
  if (usage) yield chunkWith(header, [], toChatUsage(usage));
}
