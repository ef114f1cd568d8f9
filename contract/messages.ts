import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  cacheControlField,
  MessagesContentBlockParamSchema,
  MessagesTextBlockSchema,
  signatureField,
  thinkingField,
} from './messages-blocks.js';

const c = initContract();

/**
 * The Anthropic Messages API's wire format (anthropic-version 2023-06-01), modeled on
 * anthropic-sdk-typescript's `src/resources/messages` types and the API reference
 * (https://platform.claude.com/docs/en/api/messages). Requests are lenient where the API
 * grows (unknown fields, block types, tool types and beta parameters pass), strict where the
 * gateway reads a value. docs/anthropic-messages.md describes the routes.
 */

export {
  MessagesTextBlockSchema,
  MessagesImageSourceSchema,
  MessagesImageBlockSchema,
  MessagesToolUseBlockSchema,
  MessagesToolResultBlockSchema,
  MessagesThinkingBlockSchema,
  MessagesRedactedThinkingBlockSchema,
  MessagesKnownBlockParamSchema,
  MessagesContentBlockParamSchema,
  isKnownBlockParam,
} from './messages-blocks.js';
export type { MessagesTextBlock, MessagesKnownBlockParam, MessagesContentBlockParam } from './messages-blocks.js';

export const MessageParamSchema = z
  .object({
    // `system` is not in the API reference, but Claude Code sends such a turn for model ids it
    // does not know; the translated path treats it as system text.
    role: z.enum(['user', 'assistant', 'system']).describe('Who speaks: `user` or `assistant`; a `system` turn is read as system text.'),
    content: z.union([z.string(), z.array(MessagesContentBlockParamSchema)]).describe('A text, or content blocks.'),
  })
  .passthrough();
export type MessageParam = z.infer<typeof MessageParamSchema>;

/** A client tool (`custom`, the default) or a server tool (`web_search_20250305`, …) passed as it came. */
export const MessagesCustomToolSchema = z
  .object({
    type: z.literal('custom').optional(),
    name: z.string().min(1).describe('The name the model calls it by.'),
    description: z.string().optional().describe('What it does, for the model.'),
    input_schema: z.record(z.unknown()).describe('Its input as a JSON Schema object.'),
    cache_control: cacheControlField,
  })
  .passthrough();
export type MessagesCustomTool = z.infer<typeof MessagesCustomToolSchema>;
const ServerToolSchema = z
  .object({
    type: z
      .string()
      .regex(/^(?!custom$)/)
      .describe("A server tool's versioned type (`web_search_20250305`, …): the upstream runs it."),
    name: z.string().min(1).describe("The tool's name."),
  })
  .passthrough();
export const MessagesToolSchema = z.union([MessagesCustomToolSchema, ServerToolSchema]);
export type MessagesTool = z.infer<typeof MessagesToolSchema>;

const disableParallelField = z.boolean().optional().describe('Whether the model may call at most one tool.');
export const MessagesToolChoiceSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('auto'), disable_parallel_tool_use: disableParallelField }).passthrough(),
    z.object({ type: z.literal('any'), disable_parallel_tool_use: disableParallelField }).passthrough(),
    z
      .object({
        type: z.literal('tool'),
        name: z.string().min(1).describe('The tool the model must call.'),
        disable_parallel_tool_use: disableParallelField,
      })
      .passthrough(),
    z.object({ type: z.literal('none') }).passthrough(),
  ])
  .describe('`auto`: the model decides; `any`: at least one tool; `tool`: the named one; `none`: no tool.');
export type MessagesToolChoice = z.infer<typeof MessagesToolChoiceSchema>;

export const MessagesThinkingSchema = z
  .union([
    z
      .object({
        type: z.literal('enabled'),
        budget_tokens: z.number().int().min(1).describe('Most tokens the model may spend reasoning; less than `max_tokens`.'),
      })
      .passthrough(),
    z
      .object({
        type: z
          .enum(['disabled', 'adaptive'])
          .describe('`disabled`: no extended thinking; `adaptive`: the model decides how much to reason.'),
      })
      .passthrough(),
  ])
  .describe('Extended thinking: the model reasons in `thinking` blocks before it answers.');

export const MessagesSystemSchema = z
  .union([z.string(), z.array(MessagesTextBlockSchema)])
  .describe('The system prompt: a text or text blocks.');

const promptFields = {
  model: z.string().min(1).describe('A model id from GET /v1/models.'),
  messages: z.array(MessageParamSchema).min(1).describe('The conversation so far, oldest first.'),
  system: MessagesSystemSchema.optional(),
  tools: z.array(MessagesToolSchema).optional().describe('Tools the model may call: client tools with an `input_schema`, or server tools.'),
  tool_choice: MessagesToolChoiceSchema.optional(),
  thinking: MessagesThinkingSchema.optional(),
};

export const MessagesRequestSchema = z
  .object({
    ...promptFields,
    max_tokens: z.number().int().min(1).describe('Most tokens the reply may have.'),
    stop_sequences: z.array(z.string()).optional().describe('Texts where the model stops; `stop_reason` is then `stop_sequence`.'),
    stream: z.boolean().optional().describe('Reply as server-sent Anthropic stream events (text/event-stream).'),
    temperature: z.number().min(0).max(1).optional().describe('Sampling temperature, 0 to 1: higher is more random.'),
    top_p: z.number().min(0).max(1).optional().describe('Nucleus sampling: only the tokens of this top probability mass.'),
    top_k: z.number().int().min(0).optional().describe('Sample only from the k most likely tokens.'),
    metadata: z
      .object({ user_id: z.string().nullish().describe('An opaque id of your end user (no name or email), passed to the provider.') })
      .passthrough()
      .optional()
      .describe('About the request.'),
  })
  // Beta and future fields (context_management, output_config, container, …) pass through.
  .passthrough();
export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

export const CountTokensRequestSchema = z.object(promptFields).passthrough();
export type CountTokensRequest = z.infer<typeof CountTokensRequestSchema>;

export const CountTokensResponseSchema = z.object({
  input_tokens: z.number().int().describe('Tokens of the prompt: messages, system and tools.'),
});
export type CountTokensResponse = z.infer<typeof CountTokensResponseSchema>;

// ---- Replies ------------------------------------------------------------------------------

export const MessagesUsageSchema = z
  .object({
    input_tokens: z.number().int().describe('Input tokens neither read from nor written to the prompt cache.'),
    output_tokens: z.number().int().describe('Output tokens, thinking included.'),
    cache_creation_input_tokens: z.number().int().nullable().describe('Input tokens written to the prompt cache.'),
    cache_read_input_tokens: z.number().int().nullable().describe('Input tokens read from the prompt cache.'),
    cache_creation: z
      .object({
        ephemeral_5m_input_tokens: z.number().int().describe('Written with a 5-minute lifetime.'),
        ephemeral_1h_input_tokens: z.number().int().describe('Written with a 1-hour lifetime.'),
      })
      .nullish()
      .describe('The cache writes by lifetime.'),
  })
  .passthrough();
export type MessagesUsage = z.infer<typeof MessagesUsageSchema>;

export const MessagesStopReasonSchema = z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal']);
export type MessagesStopReason = z.infer<typeof MessagesStopReasonSchema>;

export const MessagesResponseBlockSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string().describe('The text.') }).passthrough(),
  z
    .object({
      type: z.literal('tool_use'),
      id: z.string().describe('Identifies the call; answer it with a `tool_result` block with this `tool_use_id`.'),
      name: z.string().describe('The tool the model calls.'),
      input: z.unknown().describe("The call's arguments, an object following the tool's `input_schema`."),
    })
    .passthrough(),
  z.object({ type: z.literal('thinking'), thinking: thinkingField, signature: signatureField }).passthrough(),
  z.object({ type: z.string().describe('Another block type (redacted_thinking, server tool use, …), passed as it came.') }).passthrough(),
]);
export type MessagesResponseBlock = z.infer<typeof MessagesResponseBlockSchema>;

export const MessagesResponseSchema = z
  .object({
    id: z.string().describe('The id of this reply.'),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string().describe('The model that answered.'),
    content: z.array(MessagesResponseBlockSchema).describe("The reply's content blocks, in order."),
    stop_reason: MessagesStopReasonSchema.or(z.string())
      .nullable()
      .describe(
        'Why the reply ended: `end_turn`, `max_tokens`, `stop_sequence`, `tool_use`, `pause_turn` or `refusal`; null in `message_start`.',
      ),
    stop_sequence: z.string().nullable().describe('The stop sequence that ended the reply, if one did.'),
    usage: MessagesUsageSchema,
  })
  .passthrough();
export type MessagesResponse = z.infer<typeof MessagesResponseSchema>;

const blockIndexField = z.number().int().describe("The block's position in the message's `content`.");

/** The events of a `stream: true` reply (https://platform.claude.com/docs/en/build-with-claude/streaming). */
export const MessagesStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message: MessagesResponseSchema }),
  z.object({ type: z.literal('content_block_start'), index: blockIndexField, content_block: MessagesResponseBlockSchema }),
  z.object({
    type: z.literal('content_block_delta'),
    index: blockIndexField,
    delta: z
      .union([
        z.object({ type: z.literal('text_delta'), text: z.string().describe('The next piece of the text.') }),
        z.object({
          type: z.literal('input_json_delta'),
          partial_json: z.string().describe("The next piece of the tool input's JSON text."),
        }),
        z.object({ type: z.literal('thinking_delta'), thinking: z.string().describe('The next piece of the reasoning.') }),
        z.object({ type: z.literal('signature_delta'), signature: z.string().describe("The thinking block's signature.") }),
      ])
      .describe('What this event adds to the block.'),
  }),
  z.object({ type: z.literal('content_block_stop'), index: blockIndexField }),
  z.object({
    type: z.literal('message_delta'),
    delta: z
      .object({
        stop_reason: z.string().nullable().describe('Why the reply ended (as in the message).'),
        stop_sequence: z.string().nullable().describe('The stop sequence that ended the reply, if one did.'),
      })
      .describe('The end of the message.'),
    usage: MessagesUsageSchema.partial()
      .extend({ output_tokens: z.number().int().describe('Output tokens of the whole reply so far, thinking included.') })
      .describe('The counts of the whole reply so far (cumulative, not the increment).'),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({
    type: z.literal('error'),
    error: z
      .object({
        type: z.string().describe('An Anthropic error type (`overloaded_error`, …).'),
        message: z.string().describe('What went wrong, for a person.'),
      })
      .describe('Why the stream failed after it started; the stream ends after it.'),
  }),
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
  error: z
    .object({ type: MessagesErrorTypeSchema, message: z.string().describe('What went wrong, for a person.') })
    .describe('What went wrong.'),
  request_id: z.string().optional().describe('The id of the request, to quote when reporting a problem.'),
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
      'the others. With `stream: true` the reply is a `text/event-stream` of Anthropic stream events (`event: <type>` and ' +
      'its `data:`), from `message_start` to `message_stop`, without `[DONE]`; an error after the stream started arrives ' +
      'as an `error` event. `?beta=true` is accepted.',
    headers: MessagesHeadersSchema,
    query: z.object({ beta: z.string().optional() }),
    body: MessagesRequestSchema,
    responses: { 200: MessagesResponseSchema, ...messagesErrorResponses },
    metadata: {
      auth: 'api-key',
      streamChunk: MessagesStreamEventSchema,
      errorFormat: 'anthropic',
      examples: {
        request: {
          model: 'mock-chat',
          max_tokens: 64,
          system: 'Answer briefly.',
          messages: [{ role: 'user', content: 'What is a gateway?' }],
        },
        response: {
          id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
          type: 'message',
          role: 'assistant',
          model: 'mock-chat',
          content: [{ type: 'text', text: 'A single entry point in front of several services.' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 18, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
        stream:
          'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",' +
          '"model":"mock-chat","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":18,"output_tokens":1,' +
          '"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}\n\n' +
          'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
          'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}\n\n' +
          'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
          'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},' +
          '"usage":{"output_tokens":2}}\n\n' +
          'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      },
    } as const,
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
    metadata: {
      auth: 'api-key',
      errorFormat: 'anthropic',
      examples: {
        request: { model: 'mock-chat', messages: [{ role: 'user', content: 'What is a gateway?' }] },
        response: { input_tokens: 12 },
      },
    } as const,
  },
});
