import type { ChatCompletion, ToolCall } from '../../../contract';
import { toChatUsage } from '../token-usage';
import type { ModelTarget, TokenUsage } from '../types';
import { mapOpenAiFinishReason } from './map-openai-finish-reason';
import type { OpenAiChatCompletion, OpenAiContent, OpenAiUsage } from './openai-schemas';

/** Clock and id generator of the provider, for the fields compatible servers leave out. */
export interface ReplyIds {
  now: () => number;
  generateId: () => string;
}

/** An upstream chat completion -> the gateway's reply; `model` is the catalogue id (docs/chat-and-streaming.md). */
export function toChatCompletion(
  upstream: OpenAiChatCompletion,
  target: ModelTarget,
  ids: ReplyIds,
): { completion: ChatCompletion; usage: TokenUsage | null } {
  const usage = toTokenUsage(upstream.usage);
  const completion: ChatCompletion = {
    id: upstream.id || `chatcmpl-${ids.generateId()}`,
    object: 'chat.completion',
    created: createdSeconds(upstream.created, ids),
    model: target.id,
    choices: upstream.choices.map((choice, position) => {
      const toolCalls = choice.message.tool_calls?.map((call): ToolCall => ({
        id: call.id || `call_${ids.generateId()}`,
        type: 'function',
        function: { name: call.function.name, arguments: argumentsText(call.function.arguments) },
      }));
      const content = contentText(choice.message.content);
      const reasoning = reasoningText(choice.message);
      return {
        index: choice.index ?? position,
        message: {
          role: 'assistant' as const,
          ...(reasoning ? { reasoning_content: reasoning } : {}),
          content: content === '' && toolCalls?.length ? null : content,
          ...(toolCalls?.length ? { tool_calls: toolCalls } : {}),
          ...(choice.message.refusal ? { refusal: choice.message.refusal } : {}),
        },
        // A missing reason on a finished (non-streamed) reply is a plain end.
        finish_reason: mapOpenAiFinishReason(choice.finish_reason ?? 'stop'),
        ...(choice.logprobs !== undefined ? { logprobs: choice.logprobs } : {}),
      };
    }),
    // The route replaces zeros with its estimate when the provider reported nothing (usage null).
    usage: toChatUsage(usage),
    ...(upstream.system_fingerprint ? { system_fingerprint: upstream.system_fingerprint } : {}),
  };
  return { completion, usage };
}

export function contentText(content: OpenAiContent | null | undefined): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  // Typed parts: only text is part of the OpenAI reply (Mistral's "thinking" parts are not).
  return content.map((part) => (part.type === 'text' && part.text ? part.text : '')).join('');
}

/** The reasoning text of a message or delta of a compatible server (openai-schemas.ts), '' when none. */
export function reasoningText(message: { reasoning_content?: unknown; reasoning?: unknown }): string {
  if (typeof message.reasoning_content === 'string') return message.reasoning_content;
  return typeof message.reasoning === 'string' ? message.reasoning : '';
}

export function argumentsText(value: string | Record<string, unknown> | null | undefined): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * OpenAI usage -> TokenUsage (https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage):
 * `cached_tokens` are part of `prompt_tokens`, `reasoning_tokens` part of `completion_tokens`.
 * Compatible servers that send no details leave every token uncached.
 */
export function toTokenUsage(usage: OpenAiUsage | null | undefined): TokenUsage | null {
  if (!usage) return null;
  const promptTokens = usage.prompt_tokens ?? 0;
  // Some servers report only prompt and total tokens.
  const completionTokens = usage.completion_tokens ?? Math.max(0, (usage.total_tokens ?? promptTokens) - promptTokens);
  const tokens: TokenUsage = { promptTokens, completionTokens };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (cached != null) tokens.cachedTokens = cached;
  if (reasoning != null) tokens.reasoningTokens = reasoning;
  return tokens;
}

export function createdSeconds(created: number | null | undefined, ids: ReplyIds): number {
  return typeof created === 'number' && Number.isFinite(created) ? Math.floor(created) : Math.floor(ids.now() / 1000);
}
