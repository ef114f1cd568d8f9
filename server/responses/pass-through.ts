import { StringDecoder } from 'node:string_decoder';
import type { ResponsesUsage } from '../../contract';
import { parseJson } from '../providers/upstream-errors';
import { SseDecoder } from '../streaming/parse-sse';

/**
 * The pass-through path of /v1/responses (docs/openai-responses.md): the upstream's reply goes
 * back as it came, and only its usage is read on the way, for metering. Every JSON.parse of
 * upstream text is guarded: a reply without readable usage is metered by the gateway's count.
 */

export interface PassThroughUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
}

/** The usage of a `response` object (a JSON reply, or the one inside response.completed). */
export function usageOfResponse(response: unknown): PassThroughUsage | null {
  if (typeof response !== 'object' || response === null) return null;
  const usage = (response as { usage?: unknown }).usage;
  if (typeof usage !== 'object' || usage === null) return null;
  const {
    input_tokens: input,
    output_tokens: output,
    input_tokens_details: inputDetails,
    output_tokens_details: outputDetails,
  } = usage as Partial<Record<keyof ResponsesUsage, unknown>>;
  if (!isCount(input) || !isCount(output)) return null;
  const cached =
    typeof inputDetails === 'object' && inputDetails !== null ? (inputDetails as { cached_tokens?: unknown }).cached_tokens : undefined;
  const reasoning =
    typeof outputDetails === 'object' && outputDetails !== null
      ? (outputDetails as { reasoning_tokens?: unknown }).reasoning_tokens
      : undefined;
  return {
    promptTokens: input,
    completionTokens: output,
    cachedTokens: isCount(cached) ? cached : 0,
    reasoningTokens: isCount(reasoning) ? reasoning : 0,
  };
}

/** The usage of a whole JSON reply's text. */
export function usageOfReplyText(text: string): PassThroughUsage | null {
  const json = parseJson(text);
  return json.ok ? usageOfResponse(json.value) : null;
}

/** Events that end a response and carry its usage. */
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Reads a Responses event stream on its way to the client: the text to write, unchanged, and
 * what the meter needs (usage from the final event, the text deltas for an estimate when the
 * upstream reports none).
 */
export class PassThroughStreamReader {
  private readonly events = new SseDecoder();
  private readonly text = new StringDecoder('utf8');
  usage: PassThroughUsage | null = null;
  /** The stream reached its final event (completed, incomplete or failed). */
  ended = false;
  /** The text of the output deltas, for the gateway's own count. */
  output = '';

  /** The bytes of one read as text for the client; the events they complete are read here. */
  read(bytes: Uint8Array): string {
    for (const event of this.events.decode(bytes)) this.inspect(event.data);
    return this.text.write(bytes as Buffer);
  }

  end(): string {
    for (const event of this.events.end()) this.inspect(event.data);
    return this.text.end();
  }

  private inspect(data: string): void {
    const json = parseJson(data);
    if (!json.ok || typeof json.value !== 'object' || json.value === null) return;
    const event = json.value as { type?: unknown; delta?: unknown; response?: unknown };
    if (typeof event.type !== 'string') return;
    if (typeof event.delta === 'string' && event.type.endsWith('.delta')) this.output += event.delta;
    if (FINAL_EVENTS.has(event.type)) {
      this.ended = true;
      this.usage = usageOfResponse(event.response) ?? this.usage;
    }
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
