import type { ChatCompletion, ToolCall } from '../../../contract';
import { toChatUsage } from '../token-usage';
import type { ChatResult, TokenUsage } from '../types';
import { badResponse } from '../upstream-errors';
import type { GeminiGenerateContentResponse, GeminiResponsePart, GeminiUsageMetadata } from './gemini-schemas';
import { mapGeminiFinishReason } from './map-gemini-finish-reason';

/** What every chat.completion / chunk of one reply shares. */
export interface ReplyContext {
  provider: string;
  /** `chatcmpl-…` */
  id: string;
  /** Unix seconds. */
  created: number;
  /** The catalogue model id (docs/chat-and-streaming.md). */
  model: string;
  generateId: () => string;
}

/**
 * Gemini usage -> token usage (https://ai.google.dev/api/generate-content#UsageMetadata):
 * `promptTokenCount` includes the cached content (`cachedContentTokenCount`, read at the cache
 * price); thinking tokens (`thoughtsTokenCount`) are reported apart from the candidates' and
 * billed as output, so they are added to the completion tokens as reasoning tokens.
 */
export function mapGeminiUsage(usage: GeminiUsageMetadata | undefined): TokenUsage | null {
  if (!usage || usage.promptTokenCount === undefined) return null;
  const tokens: TokenUsage = {
    promptTokens: usage.promptTokenCount,
    completionTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
  };
  if (usage.cachedContentTokenCount !== undefined) tokens.cachedTokens = usage.cachedContentTokenCount;
  if (usage.thoughtsTokenCount !== undefined) tokens.reasoningTokens = usage.thoughtsTokenCount;
  return tokens;
}

/** A functionCall part -> an OpenAI tool call; Gemini gives no id unless the model sets one. */
export function toToolCall(functionCall: NonNullable<GeminiResponsePart['functionCall']>, generateId: () => string): ToolCall {
  return {
    id: functionCall.id ?? `call_${generateId()}`,
    type: 'function',
    function: { name: functionCall.name, arguments: JSON.stringify(functionCall.args ?? {}) },
  };
}

/** Answer text of a part: thought summaries are not part of the answer (they are the reasoning text). */
export function answerText(part: GeminiResponsePart): string | undefined {
  return part.thought === true ? undefined : part.text;
}

/** A non-streamed GenerateContentResponse -> chat.completion. */
export function mapGenerateContentResponse(response: GeminiGenerateContentResponse, context: ReplyContext): ChatResult {
  const usage = mapGeminiUsage(response.usageMetadata);
  const candidates = response.candidates ?? [];
  let choices: ChatCompletion['choices'];

  if (candidates.length === 0) {
    // The prompt itself was blocked: no candidates, only promptFeedback.blockReason.
    if (!response.promptFeedback?.blockReason) throw badResponse(context.provider, 'a reply without candidates');
    choices = [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' }];
  } else {
    choices = candidates.map((candidate, position) => {
      let text = '';
      let reasoning = '';
      let hasText = false;
      const toolCalls: ToolCall[] = [];
      for (const part of candidate.content?.parts ?? []) {
        if (part.thought === true && part.text) reasoning += part.text;
        const partText = answerText(part);
        if (partText !== undefined) {
          text += partText;
          hasText = true;
        }
        if (part.functionCall) toolCalls.push(toToolCall(part.functionCall, context.generateId));
      }
      const hasToolCalls = toolCalls.length > 0;
      return {
        index: candidate.index ?? position,
        message: {
          role: 'assistant' as const,
          ...(reasoning ? { reasoning_content: reasoning } : {}),
          // OpenAI sends null content beside tool calls when there is no text.
          content: hasToolCalls && !hasText ? null : text,
          ...(hasToolCalls ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: mapGeminiFinishReason(candidate.finishReason, hasToolCalls),
      };
    });
  }

  const completion: ChatCompletion = {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices,
    usage: toChatUsage(usage),
  };
  return { completion, usage };
}
