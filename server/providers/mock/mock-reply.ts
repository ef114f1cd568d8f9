import type { ChatCompletionRequest, FinishReason, Message, Tool, ToolCall } from '../../../contract';
import type { TokenUsage } from '../types';
import { tokenizer } from '../../usage/tokenizer';

/** What the mock model "says" to a request; the same request always gets the same reply. */
export interface MockReply {
  content: string | null;
  toolCalls: ToolCall[] | null;
  finishReason: FinishReason;
  usage: TokenUsage;
}

const QUOTED_CHARACTERS = 200;

export function buildMockReply(request: ChatCompletionRequest, generateId: () => string): MockReply {
  const promptTokens = request.messages.reduce((sum, message) => sum + countTokens(messageText(message)), 0);
  const tool = chosenTool(request);
  if (tool) {
    const call: ToolCall = {
      id: `call_${generateId()}`,
      type: 'function',
      function: { name: tool.function.name, arguments: JSON.stringify(exampleObject(tool.function.parameters)) },
    };
    const completionTokens = countTokens(call.function.name) + countTokens(call.function.arguments);
    return { content: null, toolCalls: [call], finishReason: 'tool_calls', usage: { promptTokens, completionTokens } };
  }

  const userText = lastUserText(request.messages);
  const text = userText === null ? 'Mock reply.' : `Mock reply to: ${Array.from(userText).slice(0, QUOTED_CHARACTERS).join('')}`;
  let content = replyContent(request.response_format, text);
  let finishReason: FinishReason = 'stop';

  // A real model stops at whichever comes first: a stop sequence or the token limit.
  const stops = typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []);
  const stopAt = Math.min(
    ...stops
      .filter((stop) => stop.length > 0)
      .map((stop) => content.indexOf(stop))
      .filter((index) => index >= 0),
  );
  if (Number.isFinite(stopAt)) content = content.slice(0, stopAt);
  let tokens = encodeText(content);
  const limit = request.max_completion_tokens ?? request.max_tokens;
  if (limit !== null && limit !== undefined && tokens.length > limit) {
    tokens = tokens.slice(0, limit);
    content = tokenizer().decode(tokens);
    finishReason = 'length';
  }
  return { content, toolCalls: null, finishReason, usage: { promptTokens, completionTokens: tokens.length } };
}

/**
 * The tool the mock calls: the named one, else the first. A call is forced (`required`, or a
 * named function) whatever came last, as OpenAI's models must; under `auto` only when the user
 * spoke last, so that a tool result gets a text answer.
 */
function chosenTool(request: ChatCompletionRequest): Tool | null {
  const tools = request.tools ?? [];
  if (tools.length === 0 || request.tool_choice === 'none') return null;
  const choice = request.tool_choice;
  const forced = choice === 'required' || (typeof choice === 'object' && choice !== null);
  if (!forced && request.messages.at(-1)?.role !== 'user') return null;
  if (typeof choice === 'object' && choice !== null) {
    return tools.find((tool) => tool.function.name === choice.function.name) ?? tools[0] ?? null;
  }
  return tools[0] ?? null;
}

/**
 * The reply's text in the requested format: JSON mode gets `{"reply": text}`; a JSON schema
 * with a `schema` gets a value that fits it (structured output), else the same object.
 */
function replyContent(format: ChatCompletionRequest['response_format'], text: string): string {
  if (format?.type === 'json_schema' && format.json_schema.schema !== undefined) {
    return JSON.stringify(exampleValue(format.json_schema.schema, format.json_schema.schema, 0));
  }
  if (format?.type === 'json_object' || format?.type === 'json_schema') return JSON.stringify({ reply: text });
  return text;
}

/** Deterministic arguments that fit the tool's JSON Schema, for a client to parse and validate. */
function exampleObject(schema: unknown): Record<string, unknown> {
  const value = exampleValue(schema, schema, 0);
  return isRecord(value) ? value : {};
}

/** Schemas nested deeper than this (recursive ones) end in the smallest value of their type. */
const MAX_EXAMPLE_DEPTH = 6;

/**
 * A value that fits a JSON Schema: the first of an `enum` or `anyOf`, `const` as it is, every
 * property of an object, one item of an array (`minItems` of them when more), a number in
 * range; `$ref`s to `#/$defs/…` or `#/definitions/…` of `root` are followed.
 */
function exampleValue(schema: unknown, root: unknown, depth: number): unknown {
  if (!isRecord(schema)) return 'mock';
  if (typeof schema.$ref === 'string') return exampleValue(resolveReference(schema.$ref, root), root, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[keyword];
    if (Array.isArray(options) && options.length > 0) return exampleValue(options[0], root, depth + 1);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((candidate) => candidate !== 'null') ?? types[0];
  const deep = depth >= MAX_EXAMPLE_DEPTH;
  switch (type) {
    case 'number':
    case 'integer':
      return typeof schema.minimum === 'number'
        ? Math.ceil(schema.minimum)
        : typeof schema.maximum === 'number'
          ? Math.floor(schema.maximum)
          : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const least = typeof schema.minItems === 'number' ? schema.minItems : 1;
      const most = typeof schema.maxItems === 'number' ? schema.maxItems : 10;
      const count = deep ? 0 : Math.min(Math.max(least, 1), most, 10);
      return Array.from({ length: count }, () => exampleValue(schema.items, root, depth + 1));
    }
    case 'object': {
      const properties = isRecord(schema.properties) && !deep ? schema.properties : {};
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, exampleValue(property, root, depth + 1)]));
    }
    default:
      return 'mock';
  }
}

function resolveReference(reference: string, root: unknown): unknown {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(reference);
  if (!match || !isRecord(root)) return undefined;
  const definitions = root[match[1] as string];
  return isRecord(definitions) ? definitions[match[2] as string] : undefined;
}

export function lastUserText(messages: readonly Message[]): string | null {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'user') return messageText(message);
  }
  return null;
}

function messageText(message: Message): string {
  const content = message.content;
  let text = typeof content === 'string' ? content : (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) text += call.function.name + call.function.arguments;
  }
  return text;
}

// Special-token text (e.g. "<|endoftext|>") in user input is counted as plain text, not refused.
const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };

export function encodeText(text: string): number[] {
  return tokenizer().encode(text, NO_SPECIAL_TOKENS);
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encodeText(text).length;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
