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
      function: { name: tool.function.name, arguments: JSON.stringify(exampleObject(tool.function.parameters, 0)) },
    };
    const completionTokens = countTokens(call.function.name) + countTokens(call.function.arguments);
    return { content: null, toolCalls: [call], finishReason: 'tool_calls', usage: { promptTokens, completionTokens } };
  }

  const userText = lastUserText(request.messages);
  const text = userText === null ? 'Mock reply.' : `Mock reply to: ${Array.from(userText).slice(0, QUOTED_CHARACTERS).join('')}`;
  const jsonMode = request.response_format?.type === 'json_object' || request.response_format?.type === 'json_schema';
  let content = jsonMode ? JSON.stringify({ reply: text }) : text;
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

/** The tool the mock calls: the named one, else the first, when tools are on and the user spoke last. */
function chosenTool(request: ChatCompletionRequest): Tool | null {
  const tools = request.tools ?? [];
  if (tools.length === 0 || request.tool_choice === 'none') return null;
  if (request.messages.at(-1)?.role !== 'user') return null;
  const choice = request.tool_choice;
  if (typeof choice === 'object' && choice !== null) {
    return tools.find((tool) => tool.function.name === choice.function.name) ?? tools[0] ?? null;
  }
  return tools[0] ?? null;
}

/** Deterministic arguments that fit the tool's JSON Schema well enough for a client to parse them. */
function exampleObject(schema: unknown, depth: number): Record<string, unknown> {
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  const result: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) result[name] = exampleValue(property, depth + 1);
  return result;
}

function exampleValue(schema: unknown, depth: number): unknown {
  if (!isRecord(schema)) return 'mock';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return [];
    case 'object':
      return depth > 3 ? {} : exampleObject(schema, depth);
    default:
      return 'mock';
  }
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
