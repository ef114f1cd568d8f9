import type { ContentPart, Message, ToolCall } from '../../../contract';
import { invalidRequest } from '../../errors/gateway-error';
import { parseJson } from '../upstream-errors';
import { appendTurn } from '../alternating-turns';
import type { ConverseContentBlock, ConverseImageFormat, ConverseMessage } from './bedrock-schemas';

/**
 * OpenAI `messages` -> Converse `system` + `messages`.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html
 * - system and developer messages become `system` text blocks, in order;
 * - turns alternate between `user` and `assistant`: consecutive messages of one role are one
 *   message with several blocks; tool results are `toolResult` blocks of a user turn, first;
 * - images are `image` blocks with the base64 `bytes` of a data URL (png, jpeg, gif, webp):
 *   Converse takes no web URLs, so an http(s) image URL is the caller's error;
 * - empty text blocks are refused by the API, so empty strings are dropped.
 */
export interface ConvertedMessages {
  system: { text: string }[];
  messages: ConverseMessage[];
  /** Whether the conversation holds tool calls or results (Converse then needs `toolConfig`). */
  hasToolBlocks: boolean;
}

const IMAGE_FORMATS: Readonly<Record<string, ConverseImageFormat>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export function convertToConverseMessages(messages: Message[]): ConvertedMessages {
  const system: { text: string }[] = [];
  const result: ConverseMessage[] = [];
  let hasToolBlocks = false;

  messages.forEach((message, messageIndex) => {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocks(message.content));
        break;
      case 'user':
        appendTurn(result, 'user', userBlocks(message.content, messageIndex));
        break;
      case 'assistant': {
        const calls = (message.tool_calls ?? []).map((call, callIndex) => toolUseBlock(call, messageIndex, callIndex));
        if (calls.length > 0) hasToolBlocks = true;
        appendTurn(result, 'assistant', [...textBlocks(message.content ?? null), ...calls]);
        break;
      }
      case 'tool':
        hasToolBlocks = true;
        appendTurn(result, 'user', [
          { toolResult: { toolUseId: message.tool_call_id, content: textBlocks(message.content).filter((block) => block.text !== '') } },
        ]);
        break;
    }
  });

  for (const message of result) {
    if (message.role === 'user') message.content = toolResultsFirst(message.content);
  }
  return { system, messages: result, hasToolBlocks };
}

function textBlocks(content: string | { type: 'text'; text: string }[] | null): { text: string }[] {
  if (content === null) return [];
  const texts = typeof content === 'string' ? [content] : content.map((part) => part.text);
  return texts.filter((text) => text.length > 0).map((text) => ({ text }));
}

function userBlocks(content: string | ContentPart[], messageIndex: number): ConverseContentBlock[] {
  if (typeof content === 'string') return textBlocks(content);
  const blocks: ConverseContentBlock[] = [];
  content.forEach((part, partIndex) => {
    if (part.type === 'text') {
      if (part.text.length > 0) blocks.push({ text: part.text });
    } else {
      blocks.push(imageBlock(part.image_url.url, `messages[${messageIndex}].content[${partIndex}].image_url.url`));
    }
  });
  return blocks;
}

function imageBlock(url: string, param: string): ConverseContentBlock {
  if (!url.startsWith('data:')) {
    throw invalidRequest('invalid_value', 'This model takes images as base64 data URLs (data:<type>;base64,<data>) only.', param);
  }
  const comma = url.indexOf(',');
  const header = comma === -1 ? '' : url.slice('data:'.length, comma);
  const [mediaType = '', ...flags] = header.split(';');
  if (comma === -1 || !flags.includes('base64')) {
    throw invalidRequest('invalid_value', 'Image data URLs must be base64-encoded (data:<type>;base64,<data>).', param);
  }
  const format = IMAGE_FORMATS[mediaType.toLowerCase()];
  if (!format) throw invalidRequest('invalid_value', `Image type "${mediaType}" is not supported; use jpeg, png, gif or webp.`, param);
  return { image: { format, source: { bytes: url.slice(comma + 1) } } };
}

/** Converse wants the arguments as a JSON object, so arguments that are not one are the caller's error. */
function toolUseBlock(call: ToolCall, messageIndex: number, callIndex: number): ConverseContentBlock {
  const param = `messages[${messageIndex}].tool_calls[${callIndex}].function.arguments`;
  // Clients send "" for functions without parameters.
  const text = call.function.arguments.trim() === '' ? '{}' : call.function.arguments;
  const parsed = parseJson(text);
  if (!parsed.ok) throw invalidRequest('invalid_value', 'Tool call arguments must be valid JSON.', param);
  const input = parsed.value;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalidRequest('invalid_value', 'Tool call arguments must be a JSON object.', param);
  }
  return { toolUse: { toolUseId: call.id, name: call.function.name, input: input as Record<string, unknown> } };
}

function toolResultsFirst(blocks: ConverseContentBlock[]): ConverseContentBlock[] {
  const results = blocks.filter((block) => 'toolResult' in block);
  if (results.length === 0 || results.length === blocks.length) return blocks;
  return [...results, ...blocks.filter((block) => !('toolResult' in block))];
}
