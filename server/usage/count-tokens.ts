import type { ChatCompletionRequest, EmbeddingsRequest } from '../../contract';
import { tokenizer } from './tokenizer';

/**
 * Token counts made by the gateway: (1) a quick estimate to reserve rate-limit tokens before
 * a call (reconciled with the real usage afterwards), (2) the billed usage when a provider
 * reports none (flagged `estimated`), counted with the o200k tokenizer, exact for current
 * OpenAI models and a close estimate for others. Tokenizing is kept off the common path: for
 * a short chat prompt it costs about as much as the rest of the gateway's own work.
 */
const PER_MESSAGE_OVERHEAD = 4;
/** A typical image costs 85-1105 tokens depending on size and provider; reserve a middle value. */
const PER_IMAGE_ESTIMATE = 512;

export function countTextTokens(text: string): number {
  return text.length === 0 ? 0 : tokenizer().countTokens(text);
}

export function estimatePromptTokens(request: ChatCompletionRequest): number {
  return promptTokensBy(request, countTextTokens);
}

/** The o200k count of a prompt, made on first use (only when it is billed), then remembered. */
export function promptTokenCounter(request: ChatCompletionRequest): () => number {
  let count: number | null = null;
  return () => (count ??= estimatePromptTokens(request));
}

/**
 * The rate-limit reservation's estimate of a text: a token per 4 ASCII characters (o200k
 * averages ~4.5 on English and code) and one per other UTF-16 unit (CJK text runs close to
 * one token per character; accented letters are over-counted, which only reserves more).
 */
export function quickTextTokens(text: string): number {
  // All ASCII (then its UTF-8 length equals its length), the common case, without a loop in JS.
  if (Buffer.byteLength(text, 'utf8') === text.length) return Math.ceil(text.length / 4);
  let ascii = 0;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) < 128) ascii++;
  return Math.ceil(ascii / 4) + (text.length - ascii);
}

/** `estimatePromptTokens` with `quickTextTokens` in place of the tokenizer. */
export function quickPromptTokens(request: ChatCompletionRequest): number {
  return promptTokensBy(request, quickTextTokens);
}

/** A prompt's tokens: its texts counted by `countText`, plus the per-message and per-image allowances. */
function promptTokensBy(request: ChatCompletionRequest, countText: (text: string) => number): number {
  let total = 3;
  for (const message of request.messages) {
    total += PER_MESSAGE_OVERHEAD;
    const content = message.content;
    if (typeof content === 'string') total += countText(content);
    else if (Array.isArray(content)) {
      for (const part of content) total += part.type === 'text' ? countText(part.text) : PER_IMAGE_ESTIMATE;
    }
    if (message.role === 'assistant' && message.tool_calls) {
      for (const call of message.tool_calls) total += countText(call.function.name) + countText(call.function.arguments);
    }
  }
  if (request.tools) total += countText(JSON.stringify(request.tools));
  return total;
}

export function quickEmbeddingTokens(request: EmbeddingsRequest): number {
  const inputs = typeof request.input === 'string' ? [request.input] : request.input;
  let total = 0;
  for (const input of inputs) total += quickTextTokens(input);
  return total;
}

export function estimateEmbeddingTokens(request: EmbeddingsRequest): number {
  const inputs = typeof request.input === 'string' ? [request.input] : request.input;
  let total = 0;
  for (const input of inputs) total += countTextTokens(input);
  return total;
}
