import { z } from 'zod';

/**
 * Bedrock's wire formats, as far as the gateway reads or writes them. Replies are checked with
 * `passthrough` objects: fields AWS adds later are kept, not refused.
 * Converse:        https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 * ConverseStream:  https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 * Content blocks:  https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html
 * Token usage:     https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
 */

// ---- Converse request (written by the gateway) ----------------------------------------------

export type ConverseImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export type ConverseContentBlock =
  | { text: string }
  | { image: { format: ConverseImageFormat; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: Record<string, unknown> } }
  | { toolResult: { toolUseId: string; content: { text: string }[]; status?: 'success' | 'error' } };

export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseContentBlock[];
}

export interface ConverseTool {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } };
}

export type ConverseToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface ConverseRequest {
  messages: ConverseMessage[];
  system?: { text: string }[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: ConverseTool[]; toolChoice?: ConverseToolChoice };
  /** Fields the model itself takes (Claude's `thinking`). */
  additionalModelRequestFields?: Record<string, unknown>;
}

// ---- Converse reply ------------------------------------------------------------------------

export const ConverseUsageSchema = z
  .object({
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    totalTokens: z.number().int().nonnegative().optional(),
    cacheReadInputTokens: z.number().int().nonnegative().optional(),
    cacheWriteInputTokens: z.number().int().nonnegative().optional(),
  })
  .passthrough();
export type ConverseUsage = z.infer<typeof ConverseUsageSchema>;

const ReasoningContentSchema = z
  .object({
    reasoningText: z.object({ text: z.string(), signature: z.string().optional() }).passthrough().optional(),
    redactedContent: z.string().optional(),
  })
  .passthrough();

/** One block of a reply; a block of a kind not listed here (citations, images) is kept and skipped. */
export const ConverseReplyBlockSchema = z
  .object({
    text: z.string().optional(),
    toolUse: z.object({ toolUseId: z.string(), name: z.string(), input: z.unknown() }).passthrough().optional(),
    reasoningContent: ReasoningContentSchema.optional(),
  })
  .passthrough();

export const ConverseResponseSchema = z
  .object({
    output: z.object({
      message: z.object({ role: z.string(), content: z.array(ConverseReplyBlockSchema) }).passthrough(),
    }),
    stopReason: z.string(),
    usage: ConverseUsageSchema.optional(),
  })
  .passthrough();
export type ConverseResponse = z.infer<typeof ConverseResponseSchema>;

// ---- ConverseStream events (the payload of each event-stream message, by its :event-type) ---

export const ContentBlockStartEventSchema = z
  .object({
    contentBlockIndex: z.number().int().nonnegative(),
    start: z.object({ toolUse: z.object({ toolUseId: z.string(), name: z.string() }).passthrough().optional() }).passthrough(),
  })
  .passthrough();

export const ContentBlockDeltaEventSchema = z
  .object({
    contentBlockIndex: z.number().int().nonnegative(),
    delta: z
      .object({
        text: z.string().optional(),
        toolUse: z.object({ input: z.string() }).passthrough().optional(),
        reasoningContent: z
          .object({ text: z.string().optional(), signature: z.string().optional(), redactedContent: z.string().optional() })
          .passthrough()
          .optional(),
      })
      .passthrough(),
  })
  .passthrough();

export const ContentBlockStopEventSchema = z.object({ contentBlockIndex: z.number().int().nonnegative() }).passthrough();

export const MessageStopEventSchema = z.object({ stopReason: z.string() }).passthrough();

export const StreamMetadataEventSchema = z.object({ usage: ConverseUsageSchema.optional() }).passthrough();

// ---- InvokeModel bodies of the embedding models ---------------------------------------------

/** https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html */
export const TitanEmbeddingResponseSchema = z
  .object({ embedding: z.array(z.number()), inputTextTokenCount: z.number().int().nonnegative().optional() })
  .passthrough();

/**
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html: `embeddings`
 * is the list of float vectors, or an object by type (`{"float": [...]}`) when the request
 * named `embedding_types`.
 */
export const CohereEmbeddingResponseSchema = z
  .object({
    embeddings: z.union([z.array(z.array(z.number())), z.object({ float: z.array(z.array(z.number())) }).passthrough()]),
  })
  .passthrough();

/** https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html */
export const CountTokensResponseSchema = z.object({ inputTokens: z.number().int().nonnegative() }).passthrough();

/** A chunk of InvokeModelWithResponseStream: the model's own event, base64-encoded. */
export const PayloadPartSchema = z.object({ bytes: z.string() }).passthrough();
