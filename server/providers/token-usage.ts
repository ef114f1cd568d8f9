import type { ChatUsage } from '../../contract';
import type { TokenUsage } from './types';

/**
 * TokenUsage -> a chat reply's usage, in OpenAI's shape: the cached and reasoning parts as
 * `prompt_tokens_details.cached_tokens` and `completion_tokens_details.reasoning_tokens`, each
 * only when the provider reported it. Zeros when the provider reported nothing (usage null):
 * the route then puts its estimate in.
 */
export function toChatUsage(usage: TokenUsage | null): ChatUsage {
  const promptTokens = usage?.promptTokens ?? 0;
  const completionTokens = usage?.completionTokens ?? 0;
  const chatUsage: ChatUsage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  if (usage?.cachedTokens !== undefined) chatUsage.prompt_tokens_details = { cached_tokens: usage.cachedTokens };
  if (usage?.reasoningTokens !== undefined) chatUsage.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  return chatUsage;
}

/** A chat reply's usage -> TokenUsage: what a stream's usage chunk says when the adapter set no `ChatStream.usage`. */
export function fromChatUsage(usage: ChatUsage): TokenUsage {
  const tokens: TokenUsage = { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (cached != null) tokens.cachedTokens = cached;
  if (reasoning != null) tokens.reasoningTokens = reasoning;
  return tokens;
}
