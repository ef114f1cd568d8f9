import { parseJson } from '../providers/upstream-errors';
import { SseDecoder } from '../streaming/parse-sse';

/**
 * docs/rate-limits.md, "The reply's estimate": what a passed-through reply generated (its text,
 * reasoning and tool-call arguments), read out of the reply as it came, whatever its format, for
 * the tokenizer's count when the upstream reported no usage. Each format says where its
 * generated text is (`OutputTextOf`); the reading of a JSON body or an event stream is shared.
 */
export interface OutputTextOf {
  /** The generated text of a whole JSON reply. */
  reply(value: Record<string, unknown>): string;
  /** The generated text one event of a stream adds. */
  event(value: Record<string, unknown>): string;
}

export function replyOutputText(replyText: string, stream: boolean, outputText: OutputTextOf): string {
  if (!stream) {
    const json = parseJson(replyText);
    return json.ok && isObject(json.value) ? outputText.reply(json.value) : '';
  }
  const decoder = new SseDecoder();
  let output = '';
  for (const event of [...decoder.decode(Buffer.from(replyText)), ...decoder.end()]) {
    const json = parseJson(event.data);
    if (json.ok && isObject(json.value)) output += outputText.event(json.value);
  }
  return output;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** `value[name]` when it is a string, else ''. */
export function stringField(value: unknown, name: string): string {
  if (!isObject(value)) return '';
  const field = value[name];
  return typeof field === 'string' ? field : '';
}

/** The items of `value[name]` when it is an array, else none. */
export function arrayField(value: unknown, name: string): unknown[] {
  if (!isObject(value)) return [];
  const field = value[name];
  return Array.isArray(field) ? (field as unknown[]) : [];
}
