import type { ChatCompletion, ChatCompletionRequest, Message } from '../../contract';

/**
 * docs/tracing.md, "Content": a chat request's messages and its reply in the GenAI semantic
 * conventions' message form (`gen_ai.system_instructions`, `gen_ai.input.messages`,
 * `gen_ai.output.messages`: a role and its parts), recorded only when the operator opts in.
 */

export type MessagePart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string }
  | { type: string };

export interface ContentMessage {
  role: string;
  parts: MessagePart[];
  finish_reason?: string;
}

/** The system instructions (system and developer messages) and the other messages of a chat request. */
export function inputContent(body: ChatCompletionRequest): { system: MessagePart[]; messages: ContentMessage[] } {
  const system: MessagePart[] = [];
  const messages: ContentMessage[] = [];
  for (const message of body.messages) {
    if (message.role === 'system' || message.role === 'developer') system.push(...textParts(message.content));
    else messages.push({ role: message.role, parts: partsOf(message) });
  }
  return { system, messages };
}

/** A non-streamed reply's choices, one output message each. */
export function outputContent(completion: ChatCompletion): ContentMessage[] {
  return completion.choices.map((choice) => {
    const parts: MessagePart[] = [];
    if (choice.message.content) parts.push({ type: 'text', content: choice.message.content });
    for (const call of choice.message.tool_calls ?? []) parts.push(toolCallPart(call.id, call.function.name, call.function.arguments));
    return { role: 'assistant', parts, finish_reason: choice.finish_reason };
  });
}

/** A tool call's part, its arguments parsed when they are JSON. */
export function toolCallPart(id: string, name: string, text: string): MessagePart {
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Arguments that are not JSON are kept as the model wrote them.
  }
  return { type: 'tool_call', id, name, arguments: parsed };
}

function partsOf(message: Exclude<Message, { role: 'system' | 'developer' }>): MessagePart[] {
  if (message.role === 'tool') {
    const response = typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('');
    return [{ type: 'tool_call_response', id: message.tool_call_id, response }];
  }
  if (message.role === 'assistant') {
    const parts = message.content === null || message.content === undefined ? [] : textParts(message.content);
    for (const call of message.tool_calls ?? []) parts.push(toolCallPart(call.id, call.function.name, call.function.arguments));
    return parts;
  }
  if (typeof message.content === 'string') return [{ type: 'text', content: message.content }];
  // An image is named by its kind only: its data or address is not text of the conversation.
  return message.content.map((part) => (part.type === 'text' ? { type: 'text', content: part.text } : { type: 'image' }));
}

function textParts(content: string | readonly { type: 'text'; text: string }[]): MessagePart[] {
  if (typeof content === 'string') return [{ type: 'text', content }];
  return content.map((part) => ({ type: 'text', content: part.text }));
}
