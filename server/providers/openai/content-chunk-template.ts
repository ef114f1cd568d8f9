import type { ChatCompletionChunk } from '../../../contract';
import { parseJson } from '../upstream-errors';

type Choice = ChatCompletionChunk['choices'][number];

const CONTENT_KEY = '"content":';
const PROBE = 'gateway-template-probe';
/**
 * OpenAI's padding against length side channels: a last member of random characters on every
 * delta event (`stream_options.include_obfuscation`, on by default). The mapper drops it.
 */
const PADDING_MEMBER = ',"obfuscation":"';
const PADDING_PROBE = 'gatewayPaddingProbe';
/** V8 copies a slice shorter than this (SlicedString::kMinLength); a longer one points into its parent string. */
const COPIED_SLICE_LENGTH = 13;

/**
 * Most events of a chat stream differ from one another only in the text of their content delta:
 * `{"id":…,"created":…,"model":…,"choices":[{"index":0,"delta":{"content":"…"},"finish_reason":null}]}`.
 * Once the stream mapper has parsed and mapped one such event, the text around its content
 * string is kept; a later event with the same text around another string is the same chunk with
 * that content, read with two comparisons and a slice instead of `JSON.parse` and the shape
 * checks (docs/performance.md). Anything else (a tool call, a finish, usage, another shape, a
 * string the template cannot isolate) goes through the mapper's full path. OpenAI's `obfuscation`
 * padding, a last member that changes with every event, may differ too.
 */
export class ContentChunkTemplate {
  private constructor(
    private readonly prefix: string,
    private readonly suffix: string,
    /** The text ends with the padding member after `suffix`. */
    private readonly padded: boolean,
    private readonly index: number,
    private readonly logprobs: null | undefined,
  ) {}

  /**
   * The template of an event the mapper parsed (`data`) and mapped (`mapped`), when the chunk
   * is one choice's content delta and nothing else, and the content's place in the text is
   * certain: `"content":` occurs once, followed by the string as `JSON.stringify` writes it, and
   * the same text with another string there parses to that string as the delta's content
   * (and, for a text that ends with the padding member, another padding to that top-level member).
   */
  static learn(data: string, mapped: ChatCompletionChunk): ContentChunkTemplate | null {
    if (mapped.usage !== undefined || mapped.choices.length !== 1) return null;
    const choice = mapped.choices[0] as Choice;
    if (choice.finish_reason !== null || (choice.logprobs !== undefined && choice.logprobs !== null)) return null;
    const content = choice.delta.content;
    if (typeof content !== 'string') return null;
    for (const key in choice.delta) if (key !== 'content') return null;

    const at = data.indexOf(CONTENT_KEY);
    if (at === -1 || data.indexOf(CONTENT_KEY, at + 1) !== -1) return null;
    const start = at + CONTENT_KEY.length;
    const literal = JSON.stringify(content);
    if (!data.startsWith(literal, start)) return null;
    const prefix = data.slice(0, start);
    let suffix = data.slice(start + literal.length);
    const paddingAt = paddingMemberAt(suffix);
    const padded = paddingAt !== -1;
    if (padded) suffix = suffix.slice(0, paddingAt);
    const tail = padded ? `${PADDING_MEMBER}${PADDING_PROBE}"}` : '';
    const probe = parseJson(`${prefix}"${PROBE}"${suffix}${tail}`);
    if (!probe.ok || probeContent(probe.value) !== PROBE) return null;
    if (padded && (probe.value as { obfuscation?: unknown }).obfuscation !== PADDING_PROBE) return null;
    return new ContentChunkTemplate(prefix, suffix, padded, choice.index, choice.logprobs);
  }

  /** The content of an event with this template's text around it; null when the event is anything else. */
  contentOf(data: string): string | null {
    const { prefix, suffix } = this;
    let length = data.length;
    if (this.padded) {
      const paddingAt = paddingMemberAt(data);
      if (paddingAt === -1) return null;
      length = paddingAt;
    }
    const end = length - suffix.length;
    // Whole-string equality compares memory at once; startsWith and endsWith go character by character.
    if (end - prefix.length < 2 || data.slice(0, prefix.length) !== prefix || data.slice(end, length) !== suffix) return null;
    if (data.charCodeAt(prefix.length) !== 34 || data.charCodeAt(end - 1) !== 34) return null;
    const inside = data.slice(prefix.length + 1, end - 1);
    if (inside.length < COPIED_SLICE_LENGTH && isPlainText(inside)) return inside;
    // Escapes (or something that is not one string after all): JSON's rules decide. A longer
    // slice would keep the whole text of its upstream read alive as long as the content is kept.
    const parsed = parseJson(data.slice(prefix.length, end));
    return parsed.ok && typeof parsed.value === 'string' ? parsed.value : null;
  }

  /** The one choice of such an event's chunk, with this content. */
  choice(content: string): Choice {
    const choice: Choice = { index: this.index, delta: { content }, finish_reason: null };
    if (this.logprobs !== undefined) choice.logprobs = this.logprobs;
    return choice;
  }
}

/**
 * Where the padding member starts when `text` ends with one (`,"obfuscation":"…"}`, its value
 * plain characters, so no quote can come between the member's start and the closing `"}`),
 * else -1.
 */
function paddingMemberAt(text: string): number {
  const at = text.lastIndexOf(PADDING_MEMBER);
  const valueStart = at + PADDING_MEMBER.length;
  // The closing quote must be one of its own, not the member's opening one.
  if (at === -1 || text.length - 2 < valueStart || !text.endsWith('"}')) return -1;
  return isPlainText(text.slice(valueStart, -2)) ? at : -1;
}

/** A string literal's inside that is its text as it stands: no quote, backslash or control character. */
function isPlainText(inside: string): boolean {
  for (let position = 0; position < inside.length; position++) {
    const code = inside.charCodeAt(position);
    if (code < 0x20 || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

/** `choices[0].delta.content` of a parsed event, if there is one. */
function probeContent(value: unknown): unknown {
  const choices = (value as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const delta = (choices[0] as { delta?: unknown } | null)?.delta;
  return typeof delta === 'object' && delta !== null ? (delta as { content?: unknown }).content : undefined;
}
