import { z } from 'zod';
import { AnthropicUsageSchema, type AnthropicUsage } from '../providers/anthropic/anthropic-schemas';
import { mapAnthropicUsage } from '../providers/anthropic/map-anthropic-response';
import { anthropicStreamError } from '../providers/anthropic/anthropic-error';
import type { TokenUsage } from '../providers/types';
import { parseJson } from '../providers/upstream-errors';
import type { UsageReader } from '../completions/pass-through';
import type { UpstreamError } from '../errors/gateway-error';

/**
 * Reads the usage of a passed-through Messages reply for metering, without changing a byte of
 * it (https://platform.claude.com/docs/en/build-with-claude/streaming#event-types). Only the
 * events that carry usage or end the stream are parsed (by their `event:` name): message_start
 * (input and cache counts), message_delta (cumulative counts, final), message_stop, error.
 */
const UsageHolderSchema = z.object({ usage: AnthropicUsageSchema.nullish() }).passthrough();
const MessageStartSchema = z.object({ message: UsageHolderSchema }).passthrough();
const ErrorEventSchema = z.object({ error: z.object({ type: z.string(), message: z.string().optional() }).passthrough() }).passthrough();

const USAGE_KEYS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const;

export class MessageUsageReader implements UsageReader {
  readonly eventNames = ['message_start', 'message_delta', 'message_stop', 'error'] as const;
  private usage: AnthropicUsage = {};
  /** message_stop was seen: the reply is complete. */
  completed = false;
  /** An `error` event, as the gateway error it stands for. */
  error: UpstreamError | null = null;
  /** The Message's `stop_reason` (`end_turn`, `max_tokens`, `tool_use`, …), from the reply or its message_delta. */
  finishReason: string | null = null;

  /** `provider` names the upstream in the recorded error; the client gets the event itself, unchanged. */
  constructor(private readonly provider: string) {}

  /** The usage of a whole (non-streamed) reply body; false when the body is not a Message. */
  readReply(text: string): boolean {
    const json = parseJson(text);
    if (!json.ok) return false;
    const parsed = UsageHolderSchema.safeParse(json.value);
    if (!parsed.success) return false;
    this.merge(parsed.data.usage);
    this.finishReason = stopReasonOf(json.value);
    this.completed = true;
    return true;
  }

  /** An event named in `eventNames` (others, and events without a name, change nothing). */
  readEvent(name: string | null, data: string): void {
    if (name !== 'message_start' && name !== 'message_delta' && name !== 'message_stop' && name !== 'error') return;
    if (name === 'message_stop') {
      this.completed = true;
      return;
    }
    const json = parseJson(data);
    if (!json.ok) return;
    if (name === 'message_start') {
      const parsed = MessageStartSchema.safeParse(json.value);
      if (parsed.success) this.merge(parsed.data.message.usage);
    } else if (name === 'message_delta') {
      const parsed = UsageHolderSchema.safeParse(json.value);
      if (parsed.success) this.merge(parsed.data.usage);
      this.finishReason = stopReasonOf((json.value as { delta?: unknown } | null)?.delta) ?? this.finishReason;
    } else {
      const parsed = ErrorEventSchema.safeParse(json.value);
      this.error = anthropicStreamError(this.provider, parsed.success ? parsed.data.error : { type: 'api_error' }, '');
    }
  }

  /** The tokens to bill, or null when the upstream reported none (the caller then estimates). */
  tokens(): TokenUsage | null {
    return mapAnthropicUsage(this.usage);
  }

  /** Later counts replace earlier ones (message_delta's are cumulative); absent ones never erase. */
  private merge(usage: AnthropicUsage | null | undefined): void {
    if (!usage) return;
    for (const key of USAGE_KEYS) {
      const value = usage[key];
      if (value != null) this.usage[key] = value;
    }
    // The 5-minute / 1-hour split of the cache writes, read by the exact-cost pricing.
    if (usage.cache_creation != null) this.usage.cache_creation = usage.cache_creation;
  }
}

/** A Message's (or a message_delta's `delta`) `stop_reason`, when it is a string. */
function stopReasonOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const reason = (value as { stop_reason?: unknown }).stop_reason;
  return typeof reason === 'string' ? reason : null;
}
