import type { ChatCompletionChunk, FinishReason } from '../../../contract';
import { parseSse } from '../../streaming/parse-sse';
import { badResponse, parseJson } from '../upstream-errors';
import { geminiStreamError } from './gemini-error';
import { GeminiGenerateContentResponseSchema, type GeminiCandidate, type GeminiUsageMetadata } from './gemini-schemas';
import { mapGeminiFinishReason } from './map-gemini-finish-reason';
import { answerText, mapGeminiUsage, toToolCall, type ReplyContext } from './map-gemini-response';
import { usageChunk } from '../chat-stream';

type Delta = ChatCompletionChunk['choices'][number]['delta'];

interface ChoiceState {
  finished: boolean;
  /** Running count of tool calls: the `index` of the next tool_calls delta. */
  toolCalls: number;
}

/**
 * `:streamGenerateContent?alt=sse` -> chat.completion.chunk events
 * (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent). Every SSE
 * event is a whole GenerateContentResponse carrying the next piece of each candidate; Gemini
 * sends function calls complete, never as argument fragments, so each becomes one tool_calls
 * delta. Per candidate: a role chunk first, then content / tool call deltas, then a chunk with
 * the finish reason. Finally one `choices: []` chunk with the last usageMetadata seen
 * (it is cumulative). Events are translated as they arrive; nothing is buffered.
 */
export async function* translateGeminiStream(
  body: AsyncIterable<Uint8Array>,
  context: ReplyContext & { secret: string },
): AsyncGenerator<ChatCompletionChunk> {
  const choices = new Map<number, ChoiceState>();
  let usage: GeminiUsageMetadata | undefined;

  for await (const event of parseSse(body)) {
    if (event.data.trim() === '') continue;
    const json = parseJson(event.data);
    if (!json.ok) throw badResponse(context.provider, 'a stream event that is not JSON');
    const streamError = geminiStreamError(context.provider, json.value, context.secret);
    if (streamError) throw streamError;
    const parsed = GeminiGenerateContentResponseSchema.safeParse(json.value);
    if (!parsed.success) throw badResponse(context.provider, 'a stream event of an unexpected shape');
    const response = parsed.data;
    if (response.usageMetadata) usage = response.usageMetadata;

    const candidates = response.candidates ?? [];
    if (candidates.length === 0 && response.promptFeedback?.blockReason) {
      // The prompt was blocked: one empty choice that ends with content_filter.
      if (!choices.has(0)) {
        choices.set(0, { finished: true, toolCalls: 0 });
        yield chunk(context, 0, { role: 'assistant', content: '' });
        yield chunk(context, 0, {}, 'content_filter');
      }
      continue;
    }

    for (const [position, candidate] of candidates.entries()) {
      const index = candidate.index ?? position;
      let state = choices.get(index);
      if (state === undefined) {
        state = { finished: false, toolCalls: 0 };
        choices.set(index, state);
        yield chunk(context, index, { role: 'assistant', content: '' });
      }
      if (state.finished) continue;
      yield* candidateDeltas(context, index, candidate, state);
      if (candidate.finishReason !== undefined) {
        state.finished = true;
        yield chunk(context, index, {}, mapGeminiFinishReason(candidate.finishReason, state.toolCalls > 0));
      }
    }
  }

  // A stream cut short (proxy, overload) can end cleanly at the TCP level: only the missing
  // finishReason tells. The caller must not take a truncated answer for a whole one.
  if (choices.size === 0 || [...choices.values()].some((state) => !state.finished)) {
    throw badResponse(context.provider, 'a stream that ended before its finish reason');
  }
  const tokenUsage = mapGeminiUsage(usage);
  if (tokenUsage) {
    yield usageChunk(context, tokenUsage);
  }
}

function* candidateDeltas(
  context: ReplyContext,
  index: number,
  candidate: GeminiCandidate,
  state: ChoiceState,
): Generator<ChatCompletionChunk> {
  let text = '';
  for (const part of candidate.content?.parts ?? []) {
    if (part.thought === true && part.text) {
      if (text) yield chunk(context, index, { content: text });
      text = '';
      yield chunk(context, index, { reasoning_content: part.text });
      continue;
    }
    const partText = answerText(part);
    if (partText) text += partText;
    if (part.functionCall) {
      if (text) yield chunk(context, index, { content: text });
      text = '';
      const call = toToolCall(part.functionCall, context.generateId);
      yield chunk(context, index, { tool_calls: [{ index: state.toolCalls, ...call }] });
      state.toolCalls += 1;
    }
  }
  if (text) yield chunk(context, index, { content: text });
}

function chunk(context: ReplyContext, index: number, delta: Delta, finishReason: FinishReason | null = null): ChatCompletionChunk {
  return {
    id: context.id,
    object: 'chat.completion.chunk',
    created: context.created,
    model: context.model,
    choices: [{ index, delta, finish_reason: finishReason }],
  };
}
