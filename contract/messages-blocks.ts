import { z } from 'zod';

/**
 * The content blocks a Messages request carries (anthropic-version 2023-06-01); the routes and
 * replies are in messages.ts. docs/anthropic-messages.md describes the routes.
 */

const CacheControlSchema = z
  .object({
    type: z.literal('ephemeral'),
    ttl: z.enum(['5m', '1h']).optional().describe('How long the cache entry lives: `5m` (default) or `1h`.'),
  })
  .passthrough();
export const cacheControlField = CacheControlSchema.nullish().describe(
  'A prompt-cache breakpoint: the prompt up to and including this block is cached.',
);

export const MessagesTextBlockSchema = z
  .object({
    type: z.literal('text'),
    text: z.string().describe('The text.'),
    cache_control: cacheControlField,
    citations: z.array(z.unknown()).nullish().describe('Citations supporting the text, passed as they came.'),
  })
  .passthrough();
export type MessagesTextBlock = z.infer<typeof MessagesTextBlockSchema>;

export const MessagesImageSourceSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('base64'),
      media_type: z.string().min(1).describe("The image's media type, e.g. `image/png`."),
      data: z.string().describe('The image bytes, base64-encoded.'),
    })
    .passthrough(),
  z.object({ type: z.literal('url'), url: z.string().min(1).describe('An image address the provider fetches.') }).passthrough(),
  z.object({ type: z.literal('file'), file_id: z.string().min(1).describe("An id from Anthropic's Files API.") }).passthrough(),
]);
export const MessagesImageBlockSchema = z
  .object({ type: z.literal('image'), source: MessagesImageSourceSchema, cache_control: cacheControlField })
  .passthrough();

export const MessagesToolUseBlockSchema = z
  .object({
    type: z.literal('tool_use'),
    id: z.string().min(1).describe('Identifies the call; a `tool_result` block answers it with this `tool_use_id`.'),
    name: z.string().min(1).describe('The tool the model called.'),
    input: z.unknown().describe("The call's arguments, an object following the tool's `input_schema`."),
    cache_control: cacheControlField,
  })
  .passthrough();

export const MessagesToolResultBlockSchema = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1).describe('The `id` of the `tool_use` block this answers.'),
    content: z
      .union([
        z.string(),
        z.array(
          z.union([
            MessagesTextBlockSchema,
            MessagesImageBlockSchema,
            z.object({ type: z.string().describe('Another block type (document, search result, …), passed as it came.') }).passthrough(),
          ]),
        ),
      ])
      .optional()
      .describe("The tool's result: a text, or text, image and other blocks."),
    is_error: z.boolean().optional().describe('Whether the tool failed; the content then says how.'),
    cache_control: cacheControlField,
  })
  .passthrough();

export const thinkingField = z.string().describe("The model's reasoning text.");
export const signatureField = z.string().describe('The signature of the reasoning; send the block back unchanged in later turns.');
export const MessagesThinkingBlockSchema = z
  .object({ type: z.literal('thinking'), thinking: thinkingField, signature: signatureField.optional() })
  .passthrough();
export const MessagesRedactedThinkingBlockSchema = z
  .object({
    type: z.literal('redacted_thinking'),
    data: z.string().describe('Encrypted reasoning; send it back unchanged in later turns.'),
  })
  .passthrough();

const KNOWN_BLOCK_TYPES: ReadonlySet<string> = new Set(['text', 'image', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

/**
 * Block types the gateway does not translate (document, server tool results, …): kept as they
 * came. A pattern rather than a refinement, so that the JSON Schema derived from this one
 * (the pipeline's compiled check, the OpenAPI document) says the same.
 */
const OtherBlockSchema = z
  .object({
    type: z
      .string()
      .regex(new RegExp(`^(?!(?:${[...KNOWN_BLOCK_TYPES].join('|')})$)`), 'Invalid content block.')
      .describe('Another block type (document, server tool result, …), passed as it came.'),
  })
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
