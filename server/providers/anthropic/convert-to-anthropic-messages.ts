import type { ContentPart, Message, ToolCall } from '../../../contract';
import { invalidRequest } from '../../errors/gateway-error';
import { parseJson } from '../upstream-errors';
import { appendTurn } from '../alternating-turns';
import type {
  AnthropicContentBlockParam,
  AnthropicImageBlockParam,
  AnthropicMessageParam,
  AnthropicTextBlockParam,
  AnthropicToolResultBlockParam,
  AnthropicToolUseBlockParam,
} from './anthropic-schemas';

/**
 * OpenAI `messages` -> Anthropic `system` + `messages`.
 * - https://platform.claude.com/docs/en/api/messages (messages, system): there is no system
 *   role in `messages`, the system prompt is a top-level string; turns alternate between
 *   `user` and `assistant`, so consecutive messages of one role become one message with
 *   several content blocks. The API reference does not require the first turn to be `user`
 *   (only the final assistant turn is special: it is a prefill), so no turn is invented.
 * - https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls: tool
 *   results are `tool_result` blocks in a user turn, placed before any text of that turn.
 * - https://platform.claude.com/docs/en/build-with-claude/vision: images are `base64` or
 *   `url` sources; jpeg, png, gif and webp only.
 * - Empty text blocks are rejected by the API ("text content blocks must be non-empty"), so
 *   empty strings are dropped, and so is a message left with no block at all.
 */
export interface ConvertedMessages {
  system: string | undefined;
  messages: AnthropicMessageParam[];
}

const SUPPORTED_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export function convertToAnthropicMessages(messages: Message[]): ConvertedMessages {
  const systemParts: string[] = [];
  const result: AnthropicMessageParam[] = [];

  messages.forEach((message, messageIndex) => {
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = joinText(message.content);
        if (text.length > 0) systemParts.push(text);
        break;
      }
      case 'user':
        appendTurn(result, 'user', userBlocks(message.content, messageIndex));
        break;
      case 'assistant':
        appendTurn(result, 'assistant', [
          ...textBlocks(message.content ?? null),
          ...(message.tool_calls ?? []).map((call, callIndex) => toolUseBlock(call, messageIndex, callIndex)),
        ]);
        break;
      case 'tool':
        appendTurn(result, 'user', [toolResultBlock(message.tool_call_id, message.content)]);
        break;
    }
  });

  for (const message of result) {
    if (message.role === 'user') message.content = toolResultsFirst(message.content);
  }
  return { system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined, messages: result };
}

function joinText(content: string | { type: 'text'; text: string }[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('\n');
}

function textBlocks(content: string | { type: 'text'; text: string }[] | null): AnthropicTextBlockParam[] {
  if (content === null) return [];
  const texts = typeof content === 'string' ? [content] : content.map((part) => part.text);
  return texts.filter((text) => text.length > 0).map((text) => ({ type: 'text', text }));
}

function userBlocks(content: string | ContentPart[], messageIndex: number): AnthropicContentBlockParam[] {
  if (typeof content === 'string') return textBlocks(content);
  const blocks: AnthropicContentBlockParam[] = [];
  content.forEach((part, partIndex) => {
    if (part.type === 'text') {
      if (part.text.length > 0) blocks.push({ type: 'text', text: part.text });
    } else {
      blocks.push(imageBlock(part.image_url.url, `messages[${messageIndex}].content[${partIndex}].image_url.url`));
    }
  });
  return blocks;
}

function imageBlock(url: string, param: string): AnthropicImageBlockParam {
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',');
    const header = comma === -1 ? '' : url.slice('data:'.length, comma);
    const [mediaType = '', ...flags] = header.split(';');
    if (comma === -1 || !flags.includes('base64')) {
      throw invalidRequest('invalid_value', 'Image data URLs must be base64-encoded (data:<type>;base64,<data>).', param);
    }
    if (!SUPPORTED_IMAGE_TYPES.has(mediaType.toLowerCase())) {
      throw invalidRequest('invalid_value', `Image type "${mediaType}" is not supported; use jpeg, png, gif or webp.`, param);
    }
    return { type: 'image', source: { type: 'base64', media_type: mediaType.toLowerCase(), data: url.slice(comma + 1) } };
  }
  if (url.startsWith('https://') || url.startsWith('http://')) {
    return { type: 'image', source: { type: 'url', url } };
  }
  throw invalidRequest('invalid_value', 'Image URLs must be http(s) URLs or base64 data URLs.', param);
}

/** Anthropic wants the parsed arguments object, so arguments that are not a JSON object are the caller's error. */
function toolUseBlock(call: ToolCall, messageIndex: number, callIndex: number): AnthropicToolUseBlockParam {
  const param = `messages[${messageIndex}].tool_calls[${callIndex}].function.arguments`;
  // Clients send "" for functions without parameters.
  const text = call.function.arguments.trim() === '' ? '{}' : call.function.arguments;
  const parsed = parseJson(text);
  if (!parsed.ok) throw invalidRequest('invalid_value', 'Tool call arguments must be valid JSON.', param);
  if (!isRecord(parsed.value)) throw invalidRequest('invalid_value', 'Tool call arguments must be a JSON object.', param);
  return { type: 'tool_use', id: call.id, name: call.function.name, input: parsed.value };
}

function toolResultBlock(toolCallId: string, content: string | { type: 'text'; text: string }[]): AnthropicToolResultBlockParam {
  const block: AnthropicToolResultBlockParam = { type: 'tool_result', tool_use_id: toolCallId };
  if (typeof content === 'string') {
    if (content.length > 0) block.content = content;
  } else {
    const blocks = textBlocks(content);
    if (blocks.length > 0) block.content = blocks;
  }
  return block;
}

function toolResultsFirst(blocks: AnthropicContentBlockParam[]): AnthropicContentBlockParam[] {
  const results = blocks.filter((block) => block.type === 'tool_result');
  if (results.length === 0 || results.length === blocks.length) return blocks;
  return [...results, ...blocks.filter((block) => block.type !== 'tool_result')];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
