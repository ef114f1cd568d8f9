import type { z } from 'zod';
import {
  OpenAiChatCompletionSchema,
  OpenAiChunkSchema,
  OpenAiEmbeddingsSchema,
  type OpenAiChatCompletion,
  type OpenAiChunk,
  type OpenAiEmbeddings,
} from './openai-schemas';

/**
 * Hand-written checks of the hot upstream schemas (openai-schemas.ts), run before zod, whose
 * parse of every chat completion, stream chunk and embedding (each of its floats) is what
 * they save. Each guard accepts only values its schema accepts (a property test
 * holds them to that), so a value a guard passes is used as it is: the adapters read only
 * the schema's fields, which makes zod's stripping of unknown keys irrelevant. Anything a
 * guard does not pass goes through zod, which decides and describes the failure as before.
 */
export function parseOpenAiChatCompletion(value: unknown): z.SafeParseReturnType<unknown, OpenAiChatCompletion> {
  return isChatCompletion(value) ? { success: true, data: value } : OpenAiChatCompletionSchema.safeParse(value);
}

export function parseOpenAiChunk(value: unknown): z.SafeParseReturnType<unknown, OpenAiChunk> {
  return isChunk(value) ? { success: true, data: value } : OpenAiChunkSchema.safeParse(value);
}

export function parseOpenAiEmbeddings(value: unknown): z.SafeParseReturnType<unknown, OpenAiEmbeddings> {
  return isEmbeddings(value) ? { success: true, data: value } : OpenAiEmbeddingsSchema.safeParse(value);
}

type Fields = Record<string, unknown>;

/** zod's z.object() input: a non-null, non-array object (JSON gives no other kinds). */
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const nullish = (value: unknown): value is null | undefined => value === null || value === undefined;
const optionalString = (value: unknown): boolean => nullish(value) || typeof value === 'string';
const optionalNumber = (value: unknown): boolean => nullish(value) || (typeof value === 'number' && !Number.isNaN(value));
const optionalInteger = (value: unknown): boolean => nullish(value) || Number.isInteger(value);
const optionalCount = (value: unknown): boolean => nullish(value) || (Number.isInteger(value) && (value as number) >= 0);
const optionalFunctionType = (value: unknown): boolean => nullish(value) || value === 'function';

function optionalUsage(value: unknown): boolean {
  return (
    nullish(value) ||
    (isObject(value) &&
      optionalCount(value.prompt_tokens) &&
      optionalCount(value.completion_tokens) &&
      optionalCount(value.total_tokens) &&
      optionalDetails(value.prompt_tokens_details, 'cached_tokens') &&
      optionalDetails(value.completion_tokens_details, 'reasoning_tokens'))
  );
}

const optionalDetails = (value: unknown, count: string): boolean => nullish(value) || (isObject(value) && optionalCount(value[count]));

function optionalContent(value: unknown): boolean {
  if (nullish(value) || typeof value === 'string') return true;
  if (!Array.isArray(value)) return false;
  for (const part of value) {
    if (!isObject(part) || typeof part.type !== 'string' || (part.text !== undefined && typeof part.text !== 'string')) return false;
  }
  return true;
}

const optionalArguments = (value: unknown): boolean => nullish(value) || typeof value === 'string' || isObject(value);

function optionalArrayOf(value: unknown, check: (item: unknown) => boolean): boolean {
  if (nullish(value)) return true;
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!check(item)) return false;
  return true;
}

function isToolCall(value: unknown): boolean {
  if (!isObject(value) || !optionalString(value.id) || !optionalFunctionType(value.type)) return false;
  const fn = value.function;
  return isObject(fn) && typeof fn.name === 'string' && optionalArguments(fn.arguments);
}

function isToolCallDelta(value: unknown): boolean {
  if (!isObject(value) || !optionalInteger(value.index) || !optionalString(value.id) || !optionalFunctionType(value.type)) return false;
  const fn = value.function;
  return nullish(fn) || (isObject(fn) && optionalString(fn.name) && optionalArguments(fn.arguments));
}

function isCompletionChoice(value: unknown): boolean {
  if (!isObject(value) || !optionalInteger(value.index) || !optionalString(value.finish_reason)) return false;
  const message = value.message;
  return (
    isObject(message) &&
    optionalString(message.role) &&
    optionalContent(message.content) &&
    optionalArrayOf(message.tool_calls, isToolCall) &&
    optionalString(message.refusal)
  );
}

function isChunkChoice(value: unknown): boolean {
  if (!isObject(value) || !optionalInteger(value.index) || !optionalString(value.finish_reason)) return false;
  const delta = value.delta;
  return (
    nullish(delta) ||
    (isObject(delta) &&
      optionalString(delta.role) &&
      optionalContent(delta.content) &&
      optionalArrayOf(delta.tool_calls, isToolCallDelta) &&
      optionalString(delta.refusal))
  );
}

function isChatCompletion(value: unknown): value is OpenAiChatCompletion {
  return (
    isObject(value) &&
    optionalString(value.id) &&
    optionalString(value.object) &&
    optionalNumber(value.created) &&
    Array.isArray(value.choices) &&
    value.choices.length >= 1 &&
    optionalArrayOf(value.choices, isCompletionChoice) &&
    optionalUsage(value.usage) &&
    optionalString(value.system_fingerprint)
  );
}

function isChunk(value: unknown): value is OpenAiChunk {
  return (
    isObject(value) &&
    optionalString(value.id) &&
    optionalString(value.object) &&
    optionalNumber(value.created) &&
    optionalArrayOf(value.choices, isChunkChoice) &&
    optionalUsage(value.usage) &&
    (nullish(value.x_groq) || (isObject(value.x_groq) && optionalUsage(value.x_groq.usage))) &&
    optionalString(value.system_fingerprint)
  );
}

function isEmbeddingItem(value: unknown): boolean {
  if (!isObject(value) || !optionalCount(value.index)) return false;
  const embedding = value.embedding;
  if (typeof embedding === 'string') return true;
  if (!Array.isArray(embedding)) return false;
  for (const number of embedding) if (typeof number !== 'number' || Number.isNaN(number)) return false;
  return true;
}

function isEmbeddings(value: unknown): value is OpenAiEmbeddings {
  return (
    isObject(value) &&
    Array.isArray(value.data) &&
    value.data.length >= 1 &&
    optionalArrayOf(value.data, isEmbeddingItem) &&
    optionalUsage(value.usage)
  );
}
