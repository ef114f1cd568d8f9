import type { ContentPart, Message } from '../../../contract';
import { invalidRequest } from '../../errors/gateway-error';
import { parseJson } from '../upstream-errors';
import type { GeminiContent, GeminiPart } from './gemini-schemas';

/**
 * OpenAI messages -> Gemini `contents` + `systemInstruction`
 * (https://ai.google.dev/api/generate-content#request-body, https://ai.google.dev/api/caching#Content).
 *
 * | OpenAI                         | Gemini                                                        |
 * |--------------------------------|---------------------------------------------------------------|
 * | system, developer              | systemInstruction.parts[] (wherever they appear)              |
 * | user                           | role "user"                                                   |
 * | assistant                      | role "model"                                                  |
 * | text part                      | { text }                                                      |
 * | image_url data:…;base64,…      | { inlineData: { mimeType, data } }                            |
 * | image_url http(s)://…          | { fileData: { mimeType (from the extension), fileUri } }      |
 * | assistant tool_calls[]         | { functionCall: { id, name, args } }                          |
 * | tool                           | role "user", { functionResponse: { id, name, response } }     |
 *
 * Consecutive turns of one role are merged: Gemini expects alternating turns, and all
 * function responses of one parallel call in a single turn
 * (https://ai.google.dev/gemini-api/docs/function-calling#parallel_function_calling).
 */
export interface GeminiConversation {
  systemInstruction: { parts: { text: string }[] } | undefined;
  contents: GeminiContent[];
}

/**
 * Gemini 3 rejects a replayed functionCall without its thought signature (HTTP 400); the
 * OpenAI format cannot carry the real one back, so the documented placeholder is sent
 * (https://ai.google.dev/gemini-api/docs/thought-signatures#faqs). Older models ignore it.
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

export function convertToGeminiContents(messages: Message[]): GeminiConversation {
  const systemParts: { text: string }[] = [];
  const contents: GeminiContent[] = [];
  // tool_call_id -> function name: Gemini's functionResponse needs the name, OpenAI's tool message has only the id.
  const toolNames = new Map<string, string>();

  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        for (const text of texts(message.content)) systemParts.push({ text });
        break;
      case 'user':
        append(contents, 'user', userParts(message.content, path));
        break;
      case 'assistant': {
        const parts: GeminiPart[] = texts(message.content ?? []).map((text) => ({ text }));
        message.tool_calls?.forEach((call, callIndex) => {
          const args = parseArguments(call.function.arguments, `${path}.tool_calls[${callIndex}].function.arguments`);
          toolNames.set(call.id, call.function.name);
          const part: GeminiPart = { functionCall: { id: call.id, name: call.function.name, args } };
          // Only the first call of a step carries a signature (parallel calls share it).
          if (callIndex === 0) part.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
          parts.push(part);
        });
        append(contents, 'model', parts);
        break;
      }
      case 'tool': {
        const name = toolNames.get(message.tool_call_id);
        if (name === undefined) {
          throw invalidRequest(
            'invalid_value',
            `No earlier assistant tool call has the id "${message.tool_call_id}".`,
            `${path}.tool_call_id`,
          );
        }
        const text = texts(message.content).join('');
        append(contents, 'user', [{ functionResponse: { id: message.tool_call_id, name, response: toolResponse(text) } }]);
        break;
      }
    }
  });

  return { systemInstruction: systemParts.length > 0 ? { parts: systemParts } : undefined, contents };
}

function append(contents: GeminiContent[], role: GeminiContent['role'], parts: GeminiPart[]): void {
  // Gemini refuses turns without parts ("contents.parts must not be empty").
  if (parts.length === 0) return;
  const last = contents[contents.length - 1];
  if (last && last.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

/** The non-empty texts of a text-only content (string or text parts). */
function texts(content: string | { type: 'text'; text: string }[]): string[] {
  const all = typeof content === 'string' ? [content] : content.map((part) => part.text);
  return all.filter((text) => text.length > 0);
}

function userParts(content: string | ContentPart[], path: string): GeminiPart[] {
  if (typeof content === 'string') return content.length > 0 ? [{ text: content }] : [];
  const parts: GeminiPart[] = [];
  content.forEach((part, index) => {
    if (part.type === 'text') {
      if (part.text.length > 0) parts.push({ text: part.text });
    } else {
      parts.push(imagePart(part.image_url.url, `${path}.content[${index}].image_url.url`));
    }
  });
  return parts;
}

function imagePart(url: string, param: string): GeminiPart {
  if (url.startsWith('data:')) {
    // data:[<mime>][;param]*;base64,<data> (RFC 2397); Gemini's inlineData wants base64.
    const comma = url.indexOf(',');
    const header = comma === -1 ? [] : url.slice('data:'.length, comma).split(';');
    const mimeType = header[0] ?? '';
    if (comma === -1 || mimeType === '' || !header.slice(1).includes('base64')) {
      throw invalidRequest('invalid_value', 'An image data URL must look like data:<mime type>;base64,<data>.', param);
    }
    return { inlineData: { mimeType, data: url.slice(comma + 1) } };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidRequest('invalid_value', 'The image URL is not a valid URL.', param);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalidRequest('invalid_value', 'An image URL must be an http(s) URL or a base64 data URL.', param);
  }
  return { fileData: { mimeType: guessImageMimeType(parsed.pathname), fileUri: url } };
}

/** Image types Gemini accepts (https://ai.google.dev/gemini-api/docs/image-understanding#supported-formats). */
const IMAGE_MIME_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  gif: 'image/gif',
};

function guessImageMimeType(pathname: string): string {
  const dot = pathname.lastIndexOf('.');
  const extension = dot === -1 ? '' : pathname.slice(dot + 1).toLowerCase();
  return IMAGE_MIME_TYPES[extension] ?? 'image/jpeg';
}

function parseArguments(text: string, param: string): Record<string, unknown> {
  // Some clients send "" for a call without arguments.
  if (text.trim() === '') return {};
  const parsed = parseJson(text);
  if (!parsed.ok) throw invalidRequest('invalid_value', 'The tool call arguments are not valid JSON.', param);
  if (!isPlainObject(parsed.value)) throw invalidRequest('invalid_value', 'The tool call arguments must be a JSON object.', param);
  return parsed.value;
}

/** functionResponse.response is a JSON object (a protobuf Struct): wrap anything else. */
function toolResponse(text: string): Record<string, unknown> {
  const parsed = parseJson(text);
  return parsed.ok && isPlainObject(parsed.value) ? parsed.value : { content: text };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
