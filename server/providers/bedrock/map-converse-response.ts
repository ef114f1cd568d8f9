import type { ToolCall } from '../../../contract';
import { oneChoiceResult } from '../token-usage';
import type { ChatResult, TokenUsage } from '../types';
import type { ConverseResponse, ConverseUsage } from './bedrock-schemas';
import { mapBedrockStopReason } from './map-bedrock-stop-reason';

/**
 * Converse reply -> OpenAI chat.completion.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 * - `text` blocks are joined into `message.content`; `toolUse` blocks become `tool_calls`, the
 *   input object serialised as the arguments string OpenAI clients parse;
 * - `reasoningContent` text is joined into `message.reasoning_content` (docs/chat-and-streaming.md,
 *   "Reasoning"); signatures and redacted reasoning are left out;
 * - other blocks (citations, images) have no chat equivalent and are left out.
 */
export interface ReplyContext {
  provider: string;
  id: string;
  created: number;
  model: string;
}

export function mapConverseResponse(reply: ConverseResponse, context: ReplyContext): ChatResult {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  let reasoning = '';
  for (const block of reply.output.message.content) {
    if (block.text !== undefined) texts.push(block.text);
    if (block.toolUse) {
      toolCalls.push({
        id: block.toolUse.toolUseId,
        type: 'function',
        function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) },
      });
    }
    reasoning += block.reasoningContent?.reasoningText?.text ?? '';
  }
  return oneChoiceResult(
    context,
    { content: texts.length > 0 ? texts.join('') : null, reasoning, toolCalls, finishReason: mapBedrockStopReason(reply.stopReason) },
    reply.usage ? mapConverseUsage(reply.usage) : null,
  );
}

/**
 * https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html: `inputTokens` are
 * the uncached input; cache reads and writes are counted apart (`totalTokens` is the sum of
 * all four), so the prompt is their sum, the breakdown kept for pricing (docs/pricing.md).
 * Bedrock's cache writes have the 5-minute lifetime unless a cache point asks for `1h`, which
 * the usage does not tell apart: they are priced as 5-minute writes.
 */
export function mapConverseUsage(usage: ConverseUsage): TokenUsage {
  const cached = usage.cacheReadInputTokens;
  const written = usage.cacheWriteInputTokens;
  const tokens: TokenUsage = { promptTokens: usage.inputTokens + (cached ?? 0) + (written ?? 0), completionTokens: usage.outputTokens };
  if (cached !== undefined) tokens.cachedTokens = cached;
  if (written !== undefined && written > 0) tokens.cacheWriteTokens = written;
  return tokens;
}
