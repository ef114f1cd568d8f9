import { z } from 'zod';

/**
 * The upstream wire format of OpenAI's Chat Completions and Embeddings APIs
 * (https://platform.openai.com/docs/api-reference/chat/object,
 * https://platform.openai.com/docs/api-reference/chat/streaming,
 * https://platform.openai.com/docs/api-reference/embeddings/object), written leniently:
 * OpenAI-compatible servers (vLLM, Ollama, DeepSeek, Mistral, Groq, Qwen) leave out
 * `id`/`object`/`created`, send `null` where OpenAI omits a field, put usage on content chunks
 * and use their own `finish_reason` values. Anything the gateway does not forward is not read.
 */

const optionalString = z.string().nullish();

export const OpenAiUsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative().nullish(),
  completion_tokens: z.number().int().nonnegative().nullish(),
  total_tokens: z.number().int().nonnegative().nullish(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().nullish() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().int().nonnegative().nullish() }).nullish(),
});
export type OpenAiUsage = z.infer<typeof OpenAiUsageSchema>;

// Some servers (Mistral's reasoning models) answer content as a list of typed parts.
const ContentSchema = z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough())]);
export type OpenAiContent = z.infer<typeof ContentSchema>;

/**
 * Reasoning text of compatible servers: `reasoning_content` (DeepSeek, vLLM, Qwen), `reasoning`
 * (OpenRouter, newer vLLM). Read only when a string: a server giving another shape loses
 * nothing but the reasoning (docs/chat-and-streaming.md, "Reasoning").
 */
const reasoningFields = { reasoning_content: z.unknown().optional(), reasoning: z.unknown().optional() };

/** What a reply and each chunk of a stream begin with; compatible servers may leave any of them out. */
const headerFields = { id: optionalString, object: optionalString, created: z.number().nullish() };

// Ollama's native API gives arguments as an object; its compatible mode should not, but might.
const ArgumentsSchema = z.union([z.string(), z.record(z.unknown())]);

export const OpenAiToolCallSchema = z.object({
  id: optionalString,
  type: z.literal('function').nullish(),
  function: z.object({ name: z.string(), arguments: ArgumentsSchema.nullish() }),
});

export const OpenAiChatCompletionSchema = z.object({
  ...headerFields,
  choices: z
    .array(
      z.object({
        index: z.number().int().nullish(),
        message: z.object({
          role: optionalString,
          content: ContentSchema.nullish(),
          tool_calls: z.array(OpenAiToolCallSchema).nullish(),
          refusal: optionalString,
          ...reasoningFields,
        }),
        finish_reason: optionalString,
        logprobs: z.unknown().optional(),
      }),
    )
    .min(1),
  usage: OpenAiUsageSchema.nullish(),
  system_fingerprint: optionalString,
});
export type OpenAiChatCompletion = z.infer<typeof OpenAiChatCompletionSchema>;

export const OpenAiToolCallDeltaSchema = z.object({
  index: z.number().int().nullish(),
  id: optionalString,
  type: z.literal('function').nullish(),
  function: z.object({ name: optionalString, arguments: ArgumentsSchema.nullish() }).nullish(),
});
export type OpenAiToolCallDelta = z.infer<typeof OpenAiToolCallDeltaSchema>;

export const OpenAiChunkSchema = z.object({
  ...headerFields,
  // vLLM sends the usage-only chunk with `choices: null` or without the key.
  choices: z
    .array(
      z.object({
        index: z.number().int().nullish(),
        delta: z
          .object({
            role: optionalString,
            content: ContentSchema.nullish(),
            tool_calls: z.array(OpenAiToolCallDeltaSchema).nullish(),
            refusal: optionalString,
            ...reasoningFields,
          })
          .nullish(),
        finish_reason: optionalString,
        logprobs: z.unknown().optional(),
      }),
    )
    .nullish(),
  usage: OpenAiUsageSchema.nullish(),
  // Groq reports stream usage here on the last chunk (https://console.groq.com/docs/api-reference#chat-create).
  x_groq: z.object({ usage: OpenAiUsageSchema.nullish() }).passthrough().nullish(),
  system_fingerprint: optionalString,
});
export type OpenAiChunk = z.infer<typeof OpenAiChunkSchema>;

export const OpenAiEmbeddingsSchema = z.object({
  data: z
    .array(
      z.object({
        index: z.number().int().nonnegative().nullish(),
        // A float list, as asked with `encoding_format: "float"`; base64 from servers that ignore it.
        embedding: z.union([z.array(z.number()), z.string()]),
      }),
    )
    .min(1),
  usage: OpenAiUsageSchema.nullish(),
});
export type OpenAiEmbeddings = z.infer<typeof OpenAiEmbeddingsSchema>;

/**
 * OpenAI's error envelope `{"error": {"message", "type", "param", "code"}}`
 * (https://platform.openai.com/docs/guides/error-codes), plus the shapes compatible servers
 * use instead: `{"error": "text"}`, vLLM's `{"object": "error", "message"}`, FastAPI's `{"detail"}`.
 */
export const OpenAiErrorBodySchema = z.union([
  z.object({
    error: z.object({ message: z.string().nullish(), code: z.union([z.string(), z.number()]).nullish() }).passthrough(),
  }),
  z.object({ error: z.string() }),
  z.object({ message: z.string() }),
  z.object({ detail: z.string() }),
]);
