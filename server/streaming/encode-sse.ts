import type { ChatCompletionChunk } from '../../contract';

/**
 * `data: <json>` events and the `[DONE]` marker of docs/chat-and-streaming.md. The translated
 * Responses stream writes its own events (docs/architecture.md, "One way to do each thing").
 */
export function encodeSseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** A named event (`event: <name>` + `data: <json>`), as the Anthropic Messages stream sends them. */
export function encodeSseEvent(name: string, payload: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/**
 * `encodeSseData` for the chunks of one stream, byte for byte, with the part they share
 * serialized once: `{"id":…,"object":…,"created":…,"model":…,"choices":` is the same for
 * every chunk of a stream (chunkWith puts those keys first, in that order), about half of a
 * content chunk's text. A chunk of another shape is encoded by `encodeSseData` itself.
 */
export class ChunkEventEncoder {
  private id: unknown = undefined;
  private object: unknown = undefined;
  private created: unknown = undefined;
  private model: unknown = undefined;
  private prefix = '';

  encode(chunk: ChatCompletionChunk): string {
    const { id, object, created, model, choices } = chunk;
    if (
      typeof id !== 'string' ||
      typeof object !== 'string' ||
      typeof created !== 'number' ||
      typeof model !== 'string' ||
      !Array.isArray(choices)
    ) {
      return encodeSseData(chunk);
    }
    // The first five keys must be exactly these, in this order: JSON.stringify follows the
    // object's own key order. Whatever comes after them is written as JSON.stringify would.
    let position = 0;
    let rest = '';
    for (const key in chunk) {
      if (position < LEADING_KEYS.length) {
        if (key !== LEADING_KEYS[position]) return encodeSseData(chunk);
      } else {
        const value = (chunk as unknown as Record<string, unknown>)[key];
        const json = value === undefined ? undefined : JSON.stringify(value);
        if (json !== undefined) rest += `${memberPrefix(key)}${json}`;
      }
      position++;
    }
    if (position < LEADING_KEYS.length) return encodeSseData(chunk);
    if (id !== this.id || object !== this.object || created !== this.created || model !== this.model) {
      this.id = id;
      this.object = object;
      this.created = created;
      this.model = model;
      this.prefix = `data: {"id":${JSON.stringify(id)},"object":${JSON.stringify(object)},"created":${JSON.stringify(created)},"model":${JSON.stringify(model)},"choices":`;
    }
    return `${this.prefix}${encodeChoices(choices)}${rest}}\n\n`;
  }
}

const LEADING_KEYS = ['id', 'object', 'created', 'model', 'choices'] as const;

/**
 * JSON.stringify(choices), with the choices of most chunks (`{"index":…,"delta":{…},
 * "finish_reason":…}` whose delta has only text fields) written directly: a stream's events
 * are mostly those, and JSON.stringify spends most of a chunk's time walking them.
 */
function encodeChoices(choices: readonly unknown[]): string {
  let json = '[';
  for (let position = 0; position < choices.length; position++) {
    if (position > 0) json += ',';
    const choice = choices[position];
    json += encodeTextChoice(choice) ?? JSON.stringify(choice);
  }
  return `${json}]`;
}

/** A choice whose keys are index, delta, finish_reason in that order and whose delta holds only strings; otherwise undefined. */
function encodeTextChoice(choice: unknown): string | undefined {
  if (typeof choice !== 'object' || choice === null) return undefined;
  const { index, delta, finish_reason: finishReason } = choice as { index?: unknown; delta?: unknown; finish_reason?: unknown };
  if (
    typeof index !== 'number' ||
    typeof delta !== 'object' ||
    delta === null ||
    !(finishReason === null || typeof finishReason === 'string')
  )
    return undefined;
  let position = 0;
  for (const key in choice) {
    if (key !== CHOICE_KEYS[position]) return undefined;
    position++;
  }
  if (position !== CHOICE_KEYS.length) return undefined;
  let fields = '';
  for (const key in delta) {
    const value = (delta as Record<string, unknown>)[key];
    const first = TEXT_DELTA_FIELDS.get(key);
    if (typeof value !== 'string' || first === undefined) return undefined;
    fields = fields === '' ? `${first}${JSON.stringify(value)}` : `${fields}${memberPrefix(key)}${JSON.stringify(value)}`;
  }
  // Small integers' text comes from V8's number-to-string cache; JSON.stringify would build it anew.
  const indexJson = Number.isSafeInteger(index) ? String(index) : JSON.stringify(index);
  const finishJson = finishReason === null ? 'null' : JSON.stringify(finishReason);
  return `{"index":${indexJson},"delta":${fields === '' ? '{' : fields}},"finish_reason":${finishJson}}`;
}

/** `,"key":` for a member after the first, made once per key name. */
function memberPrefix(key: string): string {
  let prefix = MEMBER_PREFIXES.get(key);
  if (prefix === undefined) {
    prefix = `,${JSON.stringify(key)}:`;
    if (MEMBER_PREFIXES.size < 64) MEMBER_PREFIXES.set(key, prefix);
  }
  return prefix;
}

const MEMBER_PREFIXES = new Map<string, string>();

const CHOICE_KEYS = ['index', 'delta', 'finish_reason'] as const;
/** Delta fields of text, with what comes before their value as the delta's first member (a later one: memberPrefix). */
const TEXT_DELTA_FIELDS = new Map(['role', 'content', 'refusal'].map((key) => [key, `{"${key}":`]));

export const SSE_DONE = 'data: [DONE]\n\n';

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // nginx and similar proxies must not buffer the stream.
  'x-accel-buffering': 'no',
};
