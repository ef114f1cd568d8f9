import type { ResponsesUsage } from '../../contract';
import type { UsageReader } from '../completions/pass-through';
import { arrayField, stringField, type OutputTextOf } from '../completions/reply-output-text';
import type { TokenUsage } from '../providers/types';
import { parseJson } from '../providers/upstream-errors';

/**
 * The pass-through path of /v1/responses (docs/openai-responses.md): the upstream's reply goes
 * back as it came, and only its usage is read on the way, for metering. Every JSON.parse of
 * upstream text is guarded: a reply without readable usage is metered by the gateway's count.
 */

export interface PassThroughUsage extends TokenUsage {
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

/**
 * Why a `response` object ended: its `incomplete_details.reason` (`max_output_tokens`,
 * `content_filter`) when there is one, else its `status` (`completed`, `failed`, …).
 */
export function finishReasonOfResponse(response: unknown): string | null {
  if (typeof response !== 'object' || response === null) return null;
  const { status, incomplete_details: details } = response as { status?: unknown; incomplete_details?: unknown };
  const reason = typeof details === 'object' && details !== null ? (details as { reason?: unknown }).reason : undefined;
  if (typeof reason === 'string') return reason;
  return typeof status === 'string' ? status : null;
}

/** Events that end a response and carry its usage. */
const FINAL_EVENTS: readonly string[] = ['response.completed', 'response.incomplete', 'response.failed'];

/**
 * Reads a Responses reply on its way to the client (completions/pass-through.ts): the usage of
 * the final event (completed, incomplete or failed); an event without an `event:` line is
 * recognised by the `type` in its data.
 */
export class ResponsesUsageReader implements UsageReader {
  readonly eventNames = FINAL_EVENTS;
  error = null;
  /** The stream reached its final event. */
  completed = false;
  finishReason: string | null = null;
  private usage: PassThroughUsage | null = null;

  readReply(text: string): boolean {
    if (text.length === 0) return false;
    const json = parseJson(text);
    if (json.ok) {
      this.usage = usageOfResponse(json.value);
      this.finishReason = finishReasonOfResponse(json.value);
    }
    this.completed = true;
    return true;
  }

  readEvent(name: string | null, data: string): void {
    const json = parseJson(data);
    if (!json.ok || typeof json.value !== 'object' || json.value === null) return;
    const event = json.value as { type?: unknown; response?: unknown };
    const type = name ?? event.type;
    if (typeof type !== 'string' || !FINAL_EVENTS.includes(type)) return;
    this.completed = true;
    this.usage = usageOfResponse(event.response) ?? this.usage;
    this.finishReason = finishReasonOfResponse(event.response) ?? this.finishReason;
  }

  tokens(): TokenUsage | null {
    return this.usage;
  }
}

/**
 * Where a Responses reply's generated text is (docs/rate-limits.md, "The reply's estimate"): the
 * output items' text, reasoning summaries and function-call arguments; in a stream, its deltas.
 */
export const RESPONSES_OUTPUT_TEXT: OutputTextOf = {
  reply: (response) =>
    arrayField(response, 'output')
      .map((item) => {
        switch (stringField(item, 'type')) {
          case 'message':
            return arrayField(item, 'content')
              .map((part) => stringField(part, 'text') || stringField(part, 'refusal'))
              .join('');
          case 'reasoning':
            return arrayField(item, 'summary')
              .map((part) => stringField(part, 'text'))
              .join('');
          case 'function_call':
            return stringField(item, 'arguments');
          default:
            return '';
        }
      })
      .join(''),
  event: (event) => (stringField(event, 'type').endsWith('.delta') ? stringField(event, 'delta') : ''),
};

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
