import { z } from 'zod';

/**
 * Anthropic Messages API wire format (anthropic-version 2023-06-01).
 * Request:   https://platform.claude.com/docs/en/api/messages
 * Streaming: https://platform.claude.com/docs/en/build-with-claude/streaming
 * Errors:    https://platform.claude.com/docs/en/api/errors
 *
 * Outbound shapes are plain types (we build them); inbound shapes are zod schemas, lenient:
 * unknown fields pass, unknown block/delta/event types are kept as `{ type }` so new API
 * features (thinking, server tools, citations…) never break parsing. Only what we read is required.
 */

// ---- Outbound (request) ----------------------------------------------------------------

export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface AnthropicTextBlockParam {
  type: 'text';
  text: string;
}
export interface AnthropicImageBlockParam {
  type: 'image';
  source: AnthropicImageSource;
}
export interface AnthropicToolUseBlockParam {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface AnthropicToolResultBlockParam {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | AnthropicTextBlockParam[];
}

export type AnthropicContentBlockParam =
  AnthropicTextBlockParam | AnthropicImageBlockParam | AnthropicToolUseBlockParam | AnthropicToolResultBlockParam;

export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: AnthropicContentBlockParam[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface AnthropicMessagesRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: string;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  metadata?: { user_id: string };
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  /** https://platform.claude.com/docs/en/build-with-claude/extended-thinking */
  thinking?: { type: 'enabled'; budget_tokens: number };
  stream?: boolean;
}

// ---- Inbound (response) -----------------------------------------------------------------

export const AnthropicUsageSchema = z
  .object({
    input_tokens: z.number().int().nonnegative().nullish(),
    output_tokens: z.number().int().nonnegative().nullish(),
    cache_creation_input_tokens: z.number().int().nonnegative().nullish(),
    cache_read_input_tokens: z.number().int().nonnegative().nullish(),
    // The cache writes by lifetime; their sum is cache_creation_input_tokens.
    cache_creation: z
      .object({
        ephemeral_5m_input_tokens: z.number().int().nonnegative().nullish(),
        ephemeral_1h_input_tokens: z.number().int().nonnegative().nullish(),
      })
      .passthrough()
      .nullish(),
  })
  .passthrough();
export type AnthropicUsage = z.infer<typeof AnthropicUsageSchema>;

/**
 * A content block as received: only `type` is required here, so blocks we do not translate
 * (thinking, server_tool_use, web_search_tool_result, …) never fail parsing. The two we do
 * translate are checked strictly by `classifyContentBlock`.
 */
export const AnthropicContentBlockSchema = z.object({ type: z.string() }).passthrough();
export type AnthropicContentBlock = z.infer<typeof AnthropicContentBlockSchema>;

const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
const ToolUseBlockSchema = z.object({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() });

export type ClassifiedContentBlock =
  { kind: 'text'; text: string } | { kind: 'tool_use'; id: string; name: string; input: unknown } | { kind: 'other'; type: string };

/** null when a `text` or `tool_use` block is malformed (the caller reports a bad response). */
export function classifyContentBlock(block: AnthropicContentBlock): ClassifiedContentBlock | null {
  if (block.type === 'text') {
    const parsed = TextBlockSchema.safeParse(block);
    return parsed.success ? { kind: 'text', text: parsed.data.text } : null;
  }
  if (block.type === 'tool_use') {
    const parsed = ToolUseBlockSchema.safeParse(block);
    return parsed.success ? { kind: 'tool_use', id: parsed.data.id, name: parsed.data.name, input: parsed.data.input } : null;
  }
  return { kind: 'other', type: block.type };
}

/** The reasoning text of a `thinking` block, '' for any other block. */
export function thinkingText(block: AnthropicContentBlock): string {
  return block.type === 'thinking' && typeof block.thinking === 'string' ? block.thinking : '';
}

export const AnthropicMessageSchema = z
  .object({
    id: z.string().optional(),
    type: z.literal('message'),
    role: z.literal('assistant'),
    content: z.array(AnthropicContentBlockSchema),
    stop_reason: z.string().nullish(),
    stop_sequence: z.string().nullish(),
    usage: AnthropicUsageSchema.nullish(),
  })
  .passthrough();
export type AnthropicMessage = z.infer<typeof AnthropicMessageSchema>;

export const AnthropicErrorBodySchema = z
  .object({
    type: z.literal('error'),
    error: z.object({ type: z.string(), message: z.string().optional() }).passthrough(),
  })
  .passthrough();

// ---- Inbound (stream events) ------------------------------------------------------------

const MessageStartEventSchema = z.object({
  type: z.literal('message_start'),
  message: z.object({ usage: AnthropicUsageSchema.nullish() }).passthrough(),
});
const ContentBlockStartEventSchema = z.object({
  type: z.literal('content_block_start'),
  index: z.number().int().nonnegative(),
  content_block: AnthropicContentBlockSchema,
});
/** text_delta, thinking_delta and input_json_delta are read by the stream translator; signature_delta etc. are ignored. */
export const TextDeltaSchema = z.object({ type: z.literal('text_delta'), text: z.string() });
export const ThinkingDeltaSchema = z.object({ type: z.literal('thinking_delta'), thinking: z.string() });
export const InputJsonDeltaSchema = z.object({ type: z.literal('input_json_delta'), partial_json: z.string() });
const ContentBlockDeltaEventSchema = z.object({
  type: z.literal('content_block_delta'),
  index: z.number().int().nonnegative(),
  delta: z.object({ type: z.string() }).passthrough(),
});
const ContentBlockStopEventSchema = z.object({ type: z.literal('content_block_stop'), index: z.number().int().nonnegative() });
const MessageDeltaEventSchema = z.object({
  type: z.literal('message_delta'),
  delta: z.object({ stop_reason: z.string().nullish() }).passthrough(),
  usage: AnthropicUsageSchema.nullish(),
});
const MessageStopEventSchema = z.object({ type: z.literal('message_stop') });
const PingEventSchema = z.object({ type: z.literal('ping') });
const ErrorEventSchema = AnthropicErrorBodySchema;

export const AnthropicStreamEventSchema = z.discriminatedUnion('type', [
  MessageStartEventSchema,
  ContentBlockStartEventSchema,
  ContentBlockDeltaEventSchema,
  ContentBlockStopEventSchema,
  MessageDeltaEventSchema,
  MessageStopEventSchema,
  PingEventSchema,
  ErrorEventSchema,
]);
export type AnthropicStreamEvent = z.infer<typeof AnthropicStreamEventSchema>;

/** Event types we translate; anything else is skipped, as the streaming docs ask. */
export const KNOWN_STREAM_EVENT_TYPES: ReadonlySet<string> = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);
