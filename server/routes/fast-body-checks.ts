import type { z } from 'zod';
import { ChatCompletionRequestSchema, EmbeddingsRequestSchema } from '../../contract';

/**
 * The bodies of the two hot routes as the server validates them (routes/model-routes.ts):
 * checked by hand before zod. zod spends ~5 µs and ~8 KB of garbage on a typical chat
 * request, a tenth of all the gateway allocates per request (measured), where a plain check
 * costs well under a microsecond. A body the check passes is one zod accepts and would return
 * unchanged (no unknown key inside a nested object for zod to strip; only key order may
 * differ, and JSON consumers ignore it); a property test holds the checks to both. Anything
 * else goes to zod, which decides and reports the failure. The OpenAPI document and the
 * client keep the contract as written.
 */
export const validateChatRequest = checkedParse(ChatCompletionRequestSchema, isPlainChatRequest);
export const validateEmbeddingsRequest = checkedParse(EmbeddingsRequestSchema, isPlainEmbeddingsRequest);

/** `schema.safeParse`, trying `check` first. */
function checkedParse<S extends z.ZodTypeAny>(schema: S, check: (value: unknown) => boolean) {
  return (value: unknown): z.SafeParseReturnType<unknown, z.output<S>> =>
    check(value) ? { success: true, data: value as z.output<S> } : schema.safeParse(value);
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const nullish = (value: unknown): boolean => value === null || value === undefined;
const isNumber = (value: unknown): value is number => typeof value === 'number' && !Number.isNaN(value);
const inRange = (value: unknown, low: number, high: number): boolean => nullish(value) || (isNumber(value) && value >= low && value <= high);
const optionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';
const nullishString = (value: unknown): boolean => nullish(value) || typeof value === 'string';
const nullishBoolean = (value: unknown): boolean => nullish(value) || typeof value === 'boolean';
const nullishInteger = (value: unknown, low = -Infinity, high = Infinity): boolean =>
  nullish(value) || (Number.isInteger(value) && (value as number) >= low && (value as number) <= high);

/** zod leaves out a `__proto__` key (it never assigns one); JSON.parse keeps it as a plain key. */
const hasProtoKey = (value: Fields): boolean => Object.hasOwn(value, '__proto__');
const isRecord = (value: unknown): value is Fields => isObject(value) && !hasProtoKey(value);

/** Only the listed keys: anything else would be stripped by zod, so the body must go through it. */
function onlyKeys(value: Fields, allowed: readonly string[]): boolean {
  for (const key in value) if (!allowed.includes(key)) return false;
  return true;
}

function isTextPart(value: unknown): boolean {
  return isObject(value) && value.type === 'text' && typeof value.text === 'string' && onlyKeys(value, ['type', 'text']);
}

function isImagePart(value: unknown): boolean {
  if (!isObject(value) || value.type !== 'image_url' || !onlyKeys(value, ['type', 'image_url'])) return false;
  const image = value.image_url;
  if (!isObject(image) || typeof image.url !== 'string' || image.url.length === 0 || !onlyKeys(image, ['url', 'detail'])) return false;
  return image.detail === undefined || image.detail === 'auto' || image.detail === 'low' || image.detail === 'high';
}

function isContent(value: unknown, part: (item: unknown) => boolean): boolean {
  if (typeof value === 'string') return true;
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const item of value) if (!part(item)) return false;
  return true;
}

function isToolCall(value: unknown): boolean {
  if (!isObject(value) || typeof value.id !== 'string' || value.type !== 'function' || !onlyKeys(value, ['id', 'type', 'function'])) return false;
  const fn = value.function;
  return isObject(fn) && typeof fn.name === 'string' && typeof fn.arguments === 'string' && onlyKeys(fn, ['name', 'arguments']);
}

const TEXT_MESSAGE_KEYS = ['role', 'content', 'name'];
const ASSISTANT_KEYS = ['role', 'content', 'name', 'tool_calls', 'refusal'];
const TOOL_MESSAGE_KEYS = ['role', 'content', 'tool_call_id'];

function isMessage(value: unknown): boolean {
  if (!isObject(value)) return false;
  switch (value.role) {
    case 'system':
    case 'developer':
      return onlyKeys(value, TEXT_MESSAGE_KEYS) && isContent(value.content, isTextPart) && optionalString(value.name);
    case 'user':
      return onlyKeys(value, TEXT_MESSAGE_KEYS) && isContent(value.content, (part) => isTextPart(part) || isImagePart(part)) && optionalString(value.name);
    case 'assistant': {
      if (!onlyKeys(value, ASSISTANT_KEYS) || !optionalString(value.name) || !nullishString(value.refusal)) return false;
      if (!nullish(value.content) && !isContent(value.content, isTextPart)) return false;
      const calls = value.tool_calls;
      if (calls === undefined) return true;
      if (!Array.isArray(calls)) return false;
      for (const call of calls) if (!isToolCall(call)) return false;
      return true;
    }
    case 'tool':
      return onlyKeys(value, TOOL_MESSAGE_KEYS) && isContent(value.content, isTextPart) && typeof value.tool_call_id === 'string';
    default:
      return false;
  }
}

function isTool(value: unknown): boolean {
  if (!isObject(value) || value.type !== 'function' || !onlyKeys(value, ['type', 'function'])) return false;
  const fn = value.function;
  return (
    isObject(fn) &&
    typeof fn.name === 'string' &&
    fn.name.length > 0 &&
    optionalString(fn.description) &&
    (fn.parameters === undefined || isRecord(fn.parameters)) &&
    nullishBoolean(fn.strict) &&
    onlyKeys(fn, ['name', 'description', 'parameters', 'strict'])
  );
}

function isToolChoice(value: unknown): boolean {
  if (nullish(value) || value === 'none' || value === 'auto' || value === 'required') return true;
  if (!isObject(value) || value.type !== 'function' || !onlyKeys(value, ['type', 'function'])) return false;
  const fn = value.function;
  return isObject(fn) && typeof fn.name === 'string' && onlyKeys(fn, ['name']);
}

function isResponseFormat(value: unknown): boolean {
  if (nullish(value)) return true;
  if (!isObject(value)) return false;
  if (value.type === 'text' || value.type === 'json_object') return onlyKeys(value, ['type']);
  if (value.type !== 'json_schema' || !onlyKeys(value, ['type', 'json_schema'])) return false;
  const schema = value.json_schema;
  return (
    isObject(schema) &&
    typeof schema.name === 'string' &&
    optionalString(schema.description) &&
    (schema.schema === undefined || isRecord(schema.schema)) &&
    nullishBoolean(schema.strict) &&
    onlyKeys(schema, ['name', 'description', 'schema', 'strict'])
  );
}

function isStop(value: unknown): boolean {
  if (nullish(value) || typeof value === 'string') return true;
  if (!Array.isArray(value) || value.length > 4) return false;
  for (const item of value) if (typeof item !== 'string') return false;
  return true;
}

function isArrayOf(value: unknown, check: (item: unknown) => boolean, minLength: number): boolean {
  if (!Array.isArray(value) || value.length < minLength) return false;
  for (const item of value) if (!check(item)) return false;
  return true;
}

/** contract/chat-completions.ts ChatCompletionRequestSchema, for bodies zod would return as they are. */
export function isPlainChatRequest(value: unknown): boolean {
  if (!isRecord(value) || typeof value.model !== 'string' || value.model.length === 0) return false;
  if (!isArrayOf(value.messages, isMessage, 1)) return false;
  const options = value.stream_options;
  return (
    inRange(value.temperature, 0, 2) &&
    inRange(value.top_p, 0, 1) &&
    nullishInteger(value.max_tokens, 1) &&
    nullishInteger(value.max_completion_tokens, 1) &&
    nullishBoolean(value.stream) &&
    (nullish(options) || (isObject(options) && (options.include_usage === undefined || typeof options.include_usage === 'boolean') && onlyKeys(options, ['include_usage']))) &&
    isStop(value.stop) &&
    inRange(value.presence_penalty, -2, 2) &&
    inRange(value.frequency_penalty, -2, 2) &&
    (nullish(value.tools) || isArrayOf(value.tools, isTool, 0)) &&
    isToolChoice(value.tool_choice) &&
    nullishBoolean(value.parallel_tool_calls) &&
    isResponseFormat(value.response_format) &&
    nullishInteger(value.seed) &&
    nullishString(value.user) &&
    nullishInteger(value.n, 1, 128)
  );
}

/** contract/embeddings.ts EmbeddingsRequestSchema, likewise. */
export function isPlainEmbeddingsRequest(value: unknown): boolean {
  if (!isRecord(value) || typeof value.model !== 'string' || value.model.length === 0) return false;
  const input = value.input;
  if (typeof input !== 'string' && !(isArrayOf(input, (item) => typeof item === 'string', 1) && (input as unknown[]).length <= 2048)) return false;
  return (
    (value.encoding_format === undefined || value.encoding_format === 'float' || value.encoding_format === 'base64') &&
    (value.dimensions === undefined || (Number.isInteger(value.dimensions) && (value.dimensions as number) >= 1)) &&
    optionalString(value.user)
  );
}
