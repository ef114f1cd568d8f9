import type { ChatCompletion, ChatUsage, ToolCall } from '../../contract';
import type { ChatResult, TokenUsage } from './types';

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

/** What an upstream's one reply says, in chat's terms. */
export interface AssistantReply {
  content: string | null;
  /** '' for none. */
  reasoning: string;
  toolCalls: ToolCall[];
  finishReason: ChatCompletion['choices'][number]['finish_reason'];
}

/**
 * The one-choice chat.completion of an upstream's reply (Anthropic's Message, Bedrock's Converse
 * reply), as OpenAI writes it: `reasoning_content` and `tool_calls` only when there are some.
 */
export function oneChoiceResult(
  header: Pick<ChatCompletion, 'id' | 'created' | 'model'>,
  reply: AssistantReply,
  usage: TokenUsage | null,
): ChatResult {
  const completion: ChatCompletion = {
    id: header.id,
    object: 'chat.completion',
    created: header.created,
    model: header.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
          content: reply.content,
          ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
        },
        finish_reason: reply.finishReason,
      },
    ],
    usage: toChatUsage(usage),
  };
  return { completion, usage };
}
