import type { ToolCall } from '../../../contract';
import { badResponse } from '../upstream-errors';
import type { ChatResult, TokenUsage } from '../types';
import { oneChoiceResult } from '../token-usage';
import { classifyContentBlock, thinkingText, type AnthropicMessage, type AnthropicUsage } from './anthropic-schemas';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason';

/**
 * Anthropic Message -> OpenAI chat.completion.
 * https://platform.claude.com/docs/en/api/messages (response: content, stop_reason, usage)
 * - `text` blocks are joined into `message.content`; `tool_use` blocks become `tool_calls`
 *   with the input object serialised as the arguments string OpenAI clients parse.
 * - `thinking` blocks are joined into `message.reasoning_content` (docs/chat-and-streaming.md,
 *   "Reasoning"); their signatures and redacted thinking are left out.
 * - Other blocks (server tool results) have no OpenAI equivalent and are left out.
 * - Prompt tokens include cache writes and reads: the usage docs count all three as input;
 *   the breakdown keeps them apart, as they are priced apart (docs/pricing.md).
 */
export interface ReplyContext {
  provider: string;
  id: string;
  created: number;
  model: string;
  /** Text the assistant turn was prefilled with (JSON mode), restored in front of the reply. */
  prefill: string | null;
}

export function mapAnthropicResponse(message: AnthropicMessage, context: ReplyContext): ChatResult {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  let reasoning = '';
  for (const block of message.content) {
    reasoning += thinkingText(block);
    const classified = classifyContentBlock(block);
    if (!classified) throw badResponse(context.provider, `a malformed "${block.type}" content block`);
    if (classified.kind === 'text') texts.push(classified.text);
    else if (classified.kind === 'tool_use') {
      toolCalls.push({
        id: classified.id,
        type: 'function',
        function: { name: classified.name, arguments: JSON.stringify(classified.input ?? {}) },
      });
    }
  }

  const content = replyText(texts, toolCalls.length > 0, context.prefill);
  return oneChoiceResult(
    context,
    { content, reasoning, toolCalls, finishReason: mapAnthropicStopReason(message.stop_reason) },
    mapAnthropicUsage(message.usage ?? null),
  );
}

/**
 * With a prefill, the reply text is the prefill plus what the model added; a reply that is
 * only tool calls keeps `content: null`, as OpenAI sends it.
 */
function replyText(texts: string[], hasToolCalls: boolean, prefill: string | null): string | null {
  if (texts.length === 0) return prefill !== null && !hasToolCalls ? prefill : null;
  return (prefill ?? '') + texts.join('');
}

/**
 * https://platform.claude.com/docs/en/build-with-claude/prompt-caching#tracking-cache-performance:
 * `input_tokens` are the uncached ones after the last cache breakpoint; cache writes are split
 * by lifetime in `cache_creation` when the API sends it, else they are all 5-minute writes.
 * Thinking tokens are part of `output_tokens` and not counted apart.
 */
export function mapAnthropicUsage(usage: AnthropicUsage | null): TokenUsage | null {
  if (!usage || usage.input_tokens == null || usage.output_tokens == null) return null;
  const byLifetime = usage.cache_creation;
  const written1h = byLifetime?.ephemeral_1h_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? (byLifetime?.ephemeral_5m_input_tokens ?? 0) + written1h;
  const cached = usage.cache_read_input_tokens ?? 0;
  const tokens: TokenUsage = { promptTokens: usage.input_tokens + written + cached, completionTokens: usage.output_tokens };
  // Only the parts the API reported: a reply without them shows no details (toChatUsage).
  if (usage.cache_read_input_tokens != null) tokens.cachedTokens = cached;
  if (written > 0) {
    tokens.cacheWrite1hTokens = Math.min(written1h, written);
    tokens.cacheWriteTokens = written - tokens.cacheWrite1hTokens;
  }
  return tokens;
}
