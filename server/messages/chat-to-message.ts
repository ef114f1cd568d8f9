import type { ChatCompletion, FinishReason, MessagesResponse, MessagesResponseBlock, MessagesStopReason, MessagesUsage } from '../../contract';
import type { TokenUsage } from '../providers/types';
import { parseJson } from '../providers/upstream-errors';

/**
 * The gateway's chat reply -> an Anthropic Message (https://platform.claude.com/docs/en/api/messages,
 * response), the reverse of server/providers/anthropic/map-anthropic-response.ts: the text as
 * one `text` block, each tool call as a `tool_use` block whose `input` is the parsed arguments.
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
 * The usage of a translated reply. A chat upstream reports no cache breakdown, so all input is
 * `input_tokens` and the cache counts are 0 (Anthropic's usage counts cached input apart from
 * `input_tokens`: https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 */
export function toMessagesUsage(usage: TokenUsage): MessagesUsage {
  return {
    input_tokens: usage.promptTokens,
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

/** Tool arguments as the `input` object; arguments that are not a JSON object are kept as a string under `arguments`. */
export function toolInput(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === '') return {};
  const parsed = parseJson(argumentsText);
  if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && !Array.isArray(parsed.value)) return parsed.value as Record<string, unknown>;
  return { arguments: argumentsText };
}

export function chatToMessage(completion: ChatCompletion, usage: TokenUsage, id: string): MessagesResponse {
  const choice = completion.choices[0];
  const content: MessagesResponseBlock[] = [];
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
