import { initContract } from '@ts-rest/core';
import { z } from 'zod';

const c = initContract();

/**
 * The Anthropic Messages API's wire format (anthropic-version 2023-06-01), modeled on
 * anthropic-sdk-typescript's `src/resources/messages` types and the API reference
 * (https://platform.claude.com/docs/en/api/messages). Requests are lenient where the API
 * grows (unknown fields, block types, tool types and beta parameters pass), strict where the
 * gateway reads a value. docs/anthropic-messages.md describes the routes.
 */

const CacheControlSchema = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() }).passthrough();

export const MessagesTextBlockSchema = z
  .object({ type: z.literal('text'), text: z.string(), cache_control: CacheControlSchema.nullish(), citations: z.array(z.unknown()).nullish() })
  .passthrough();
export type MessagesTextBlock = z.infer<typeof MessagesTextBlockSchema>;

export const MessagesImageSourceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string() }).passthrough(),
  z.object({ type: z.literal('url'), url: z.string().min(1) }).passthrough(),
  z.object({ type: z.literal('file'), file_id: z.string().min(1) }).passthrough(),
]);
export const MessagesImageBlockSchema = z
  .object({ type: z.literal('image'), source: MessagesImageSourceSchema, cache_control: CacheControlSchema.nullish() })
  .passthrough();

export const MessagesToolUseBlockSchema = z
  .object({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown(), cache_control: CacheControlSchema.nullish() })
  .passthrough();

export const MessagesToolResultBlockSchema = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(z.union([MessagesTextBlockSchema, MessagesImageBlockSchema, z.object({ type: z.string() }).passthrough()]))]).optional(),
    is_error: z.boolean().optional(),
    cache_control: CacheControlSchema.nullish(),
  })
  .passthrough();

export const MessagesThinkingBlockSchema = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() }).passthrough();
export const MessagesRedactedThinkingBlockSchema = z.object({ type: z.literal('redacted_thinking'), data: z.string() }).passthrough();

const KNOWN_BLOCK_TYPES: ReadonlySet<string> = new Set(['text', 'image', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

/**
 * Block types the gateway does not translate (document, server tool results, …): kept as they
 * came. A pattern rather than a refinement, so that the JSON Schema derived from this one
 * (the pipeline's compiled check, the OpenAPI document) says the same.
 */
const OtherBlockSchema = z
  .object({ type: z.string().regex(new RegExp(`^(?!(?:${[...KNOWN_BLOCK_TYPES].join('|')})$)`), 'Invalid content block.') })
  .passthrough();

/** The blocks the gateway reads (translates); any other type passes as it came. */
export const MessagesKnownBlockParamSchema = z.discriminatedUnion('type', [
  MessagesTextBlockSchema,
  MessagesImageBlockSchema,
  MessagesToolUseBlockSchema,
  MessagesToolResultBlockSchema,
  MessagesThinkingBlockSchema,
  MessagesRedactedThinkingBlockSchema,
]);
export type MessagesKnownBlockParam = z.infer<typeof MessagesKnownBlockParamSchema>;

export const MessagesContentBlockParamSchema = z.union([MessagesKnownBlockParamSchema, OtherBlockSchema]);
export type MessagesContentBlockParam = z.infer<typeof MessagesContentBlockParamSchema>;

export function isKnownBlockParam(block: MessagesContentBlockParam): block is MessagesKnownBlockParam {
  return KNOWN_BLOCK_TYPES.has(block.type);
}

export const MessageParamSchema = z
  .object({
    // `system` is not in the API reference, but Claude Code sends such a turn for model ids it
    // does not know; the translated path treats it as system text.
    role: z.enum(['user', 'assistant', 'system']),
    content: z.union([z.string(), z.array(MessagesContentBlockParamSchema)]),
  })
  .passthrough();
export type MessageParam = z.infer<typeof MessageParamSchema>;

/** A client tool (`custom`, the default) or a server tool (`web_search_20250305`, …) passed as it came. */
export const MessagesCustomToolSchema = z
  .object({
    type: z.literal('custom').optional(),
    name: z.string().min(1),
    description: z.string().optional(),
    input_schema: z.record(z.unknown()),
    cache_control: CacheControlSchema.nullish(),
  })
  .passthrough();
export type MessagesCustomTool = z.infer<typeof MessagesCustomToolSchema>;
const ServerToolSchema = z.object({ type: z.string().regex(/^(?!custom$)/), name: z.string().min(1) }).passthrough();
export const MessagesToolSchema = z.union([MessagesCustomToolSchema, ServerToolSchema]);
export type MessagesTool = z.infer<typeof MessagesToolSchema>;

export const MessagesToolChoiceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }).passthrough(),
  z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }).passthrough(),
  z.object({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }).passthrough(),
  z.object({ type: z.literal('none') }).passthrough(),
]);
export type MessagesToolChoice = z.infer<typeof MessagesToolChoiceSchema>;

export const MessagesThinkingSchema = z.union([
  z.object({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1) }).passthrough(),
  z.object({ type: z.enum(['disabled', 'adaptive']) }).passthrough(),
]);

export const MessagesSystemSchema = z.union([z.string(), z.array(MessagesTextBlockSchema)]);

const promptFields = {
  model: z.string().min(1),
  messages: z.array(MessageParamSchema).min(1),
  system: MessagesSystemSchema.optional(),
  tools: z.array(MessagesToolSchema).optional(),
  tool_choice: MessagesToolChoiceSchema.optional(),
  thinking: MessagesThinkingSchema.optional(),
};

export const MessagesRequestSchema = z
  .object({
    ...promptFields,
    max_tokens: z.number().int().min(1),
    stop_sequences: z.array(z.string()).optional(),
    stream: z.boolean().optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().min(0).optional(),
    metadata: z.object({ user_id: z.string().nullish() }).passthrough().optional(),
  })
  // Beta and future fields (context_management, output_config, container, …) pass through.
  .passthrough();
export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

export const CountTokensRequestSchema = z.object(promptFields).passthrough();
export type CountTokensRequest = z.infer<typeof CountTokensRequestSchema>;

export const CountTokensResponseSchema = z.object({ input_tokens: z.number().int() });
export type CountTokensResponse = z.infer<typeof CountTokensResponseSchema>;

// ---- Replies ------------------------------------------------------------------------------

export const MessagesUsageSchema = z
  .object({
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cache_creation_input_tokens: z.number().int().nullable(),
    cache_read_input_tokens: z.number().int().nullable(),
    cache_creation: z.object({ ephemeral_5m_input_tokens: z.number().int(), ephemeral_1h_input_tokens: z.number().int() }).nullish(),
  })
  .passthrough();
export type MessagesUsage = z.infer<typeof MessagesUsageSchema>;

export const MessagesStopReasonSchema = z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal']);
export type MessagesStopReason = z.infer<typeof MessagesStopReasonSchema>;

export const MessagesResponseBlockSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }).passthrough(),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }).passthrough(),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }).passthrough(),
  z.object({ type: z.string() }).passthrough(),
]);
export type MessagesResponseBlock = z.infer<typeof MessagesResponseBlockSchema>;

export const MessagesResponseSchema = z
  .object({
    id: z.string(),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string(),
    content: z.array(MessagesResponseBlockSchema),
    stop_reason: MessagesStopReasonSchema.or(z.string()).nullable(),
    stop_sequence: z.string().nullable(),
    usage: MessagesUsageSchema,
  })
  .passthrough();
export type MessagesResponse = z.infer<typeof MessagesResponseSchema>;

/** The events of a `stream: true` reply (https://platform.claude.com/docs/en/build-with-claude/streaming). */
export const MessagesStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message: MessagesResponseSchema }),
  z.object({ type: z.literal('content_block_start'), index: z.number().int(), content_block: MessagesResponseBlockSchema }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number().int(),
    delta: z.union([
      z.object({ type: z.literal('text_delta'), text: z.string() }),
      z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
      z.object({ type: z.literal('thinking_delta'), thinking: z.string() }),
      z.object({ type: z.literal('signature_delta'), signature: z.string() }),
    ]),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number().int() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullable(), stop_sequence: z.string().nullable() }),
    usage: MessagesUsageSchema.partial().extend({ output_tokens: z.number().int() }),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) }),
]);
export type MessagesStreamEvent = z.infer<typeof MessagesStreamEventSchema>;

/** Anthropic's error types (https://platform.claude.com/docs/en/api/errors). */
export const MessagesErrorTypeSchema = z.enum([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'timeout_error',
  'overloaded_error',
]);
export type MessagesErrorType = z.infer<typeof MessagesErrorTypeSchema>;

/** The error body on these routes: Anthropic's shape, with the gateway's statuses (docs/errors.md). */
export const MessagesErrorBodySchema = z.object({
  type: z.literal('error'),
  error: z.object({ type: MessagesErrorTypeSchema, message: z.string() }),
  request_id: z.string().optional(),
});
export type MessagesErrorBody = z.infer<typeof MessagesErrorBodySchema>;

const messagesErrorResponses = {
  400: MessagesErrorBodySchema,
  401: MessagesErrorBodySchema,
  403: MessagesErrorBodySchema,
  404: MessagesErrorBodySchema,
  413: MessagesErrorBodySchema,
  415: MessagesErrorBodySchema,
  429: MessagesErrorBodySchema,
  500: MessagesErrorBodySchema,
  502: MessagesErrorBodySchema,
  503: MessagesErrorBodySchema,
  504: MessagesErrorBodySchema,
} as const;

/** `x-api-key` (the Anthropic SDK's default) or `Authorization: Bearer`; the version headers are accepted. */
const MessagesHeadersSchema = z.object({
  'x-api-key': z.string().optional(),
  authorization: z.string().optional(),
  'anthropic-version': z.string().optional(),
  'anthropic-beta': z.string().optional(),
});

export const messagesContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/messages',
    summary: 'Create a message (Anthropic Messages API)',
    description:
      'The Anthropic Messages API on any catalogue model: passed through to Anthropic-type providers, translated for ' +
      'the others. With `stream: true` the reply is a `text/event-stream` of Anthropic stream events. `?beta=true` is accepted.',
    headers: MessagesHeadersSchema,
    query: z.object({ beta: z.string().optional() }),
    body: MessagesRequestSchema,
    responses: { 200: MessagesResponseSchema, ...messagesErrorResponses },
    metadata: { auth: 'api-key', streamChunk: MessagesStreamEventSchema, errorFormat: 'anthropic' } as const,
  },
  countTokens: {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    summary: 'Count the input tokens of a message (Anthropic Messages API)',
    description: "The upstream's count for Anthropic-type models, the gateway's tokenizer otherwise (system and tools included).",
    headers: MessagesHeadersSchema,
    query: z.object({ beta: z.string().optional() }),
    body: CountTokensRequestSchema,
    responses: { 200: CountTokensResponseSchema, ...messagesErrorResponses },
    metadata: { auth: 'api-key', errorFormat: 'anthropic' } as const,
  },
});
