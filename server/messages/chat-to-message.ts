import type {
  ChatCompletion,
  FinishReason,
  MessagesResponse,
  MessagesResponseBlock,
  MessagesStopReason,
  MessagesUsage,
} from '../../contract';
import type { TokenUsage } from '../providers/types';
import { parseJson } from '../providers/upstream-errors';

/**
 * The gateway's chat reply -> an Anthropic Message (https://platform.claude.com/docs/en/api/messages,
 * response), the reverse of server/providers/anthropic/map-anthropic-response.ts: the reasoning
 * as a `thinking` block first (its `signature` empty: the upstream gave none), the text as one
 * `text` block, each tool call as a `tool_use` block whose `input` is the parsed arguments.
 */

/** finish_reason -> stop_reason (https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons). */
const STOP_REASONS: Readonly<Record<FinishReason, MessagesStopReason>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

export function toStopReason(finishReason: FinishReason | null | undefined): MessagesStopReason {
  return finishReason ? STOP_REASONS[finishReason] : 'end_turn';
}

/**
 * The cache breakdown a usage may carry: the provider usage's exact-cost fields (cached
 * reads, 5-minute and 1-hour cache writes, all part of `promptTokens`).
 */
export type UsageWithCache = TokenUsage & { cachedTokens?: number; cacheWriteTokens?: number; cacheWrite1hTokens?: number };

/**
 * The gateway's usage in Anthropic's terms, where `input_tokens` counts only the input neither
 * read from nor written to the cache (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 * Without a breakdown (a provider that reports none) all input is `input_tokens`, the cache
 * counts 0; OpenAI and Gemini report cache reads but no writes (docs/anthropic-messages.md).
 */
export function toMessagesUsage(usage: UsageWithCache): MessagesUsage {
  const read = usage.cachedTokens ?? 0;
  const write5m = usage.cacheWriteTokens ?? 0;
  const write1h = usage.cacheWrite1hTokens ?? 0;
  const result: MessagesUsage = {
    input_tokens: Math.max(0, usage.promptTokens - read - write5m - write1h),
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: write5m + write1h,
    cache_read_input_tokens: read,
  };
  if (write5m + write1h > 0) result.cache_creation = { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h };
  return result;
}

/** Tool arguments as the `input` object; arguments that are not a JSON object are kept as a string under `arguments`. */
export function toolInput(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === '') return {};
  const parsed = parseJson(argumentsText);
  if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && !Array.isArray(parsed.value))
    return parsed.value as Record<string, unknown>;
  return { arguments: argumentsText };
}

export function chatToMessage(completion: ChatCompletion, usage: TokenUsage, id: string): MessagesResponse {
  const choice = completion.choices[0];
  const content: MessagesResponseBlock[] = [];
  const reasoning = choice?.message.reasoning_content ?? '';
  if (reasoning.length > 0) content.push({ type: 'thinking', thinking: reasoning, signature: '' });
  const text = choice?.message.content ?? '';
  if (text.length > 0) content.push({ type: 'text', text });
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
  }
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: toStopReason(choice?.finish_reason),
    stop_sequence: null,
    usage: toMessagesUsage(usage),
  };
}
