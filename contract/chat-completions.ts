import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors';

const c = initContract();

// service-spec.md "Message" plus what OpenAI clients send today (decisions.md §5):
// `developer` and `tool` roles, `tool_calls` on assistant messages, content parts.
export const TextPartSchema = z.object({ type: z.literal('text'), text: z.string() });
export const ImagePartSchema = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
export const ContentPartSchema = z.discriminatedUnion('type', [TextPartSchema, ImagePartSchema]);
export type ContentPart = z.infer<typeof ContentPartSchema>;

const TextContentSchema = z.union([z.string(), z.array(TextPartSchema).min(1)]);
const UserContentSchema = z.union([z.string(), z.array(ContentPartSchema).min(1)]);

export const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const SystemMessageSchema = z.object({ role: z.literal('system'), content: TextContentSchema, name: z.string().optional() });
export const DeveloperMessageSchema = z.object({ role: z.literal('developer'), content: TextContentSchema, name: z.string().optional() });
export const UserMessageSchema = z.object({ role: z.literal('user'), content: UserContentSchema, name: z.string().optional() });
export const AssistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: TextContentSchema.nullish(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).optional(),
  refusal: z.string().nullish(),
});
export const ToolMessageSchema = z.object({ role: z.literal('tool'), content: TextContentSchema, tool_call_id: z.string() });

export const MessageSchema = z.discriminatedUnion('role', [
  SystemMessageSchema,
  DeveloperMessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  ToolMessageSchema,
]);
export type Message = z.infer<typeof MessageSchema>;

export const ToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});
export type Tool = z.infer<typeof ToolSchema>;

export const ToolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
]);
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

export const ResponseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string(),
      description: z.string().optional(),
      schema: z.record(z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);
export type ResponseFormat = z.infer<typeof ResponseFormatSchema>;

export const ChatCompletionRequestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(MessageSchema).min(1),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    max_tokens: z.number().int().min(1).nullish(),
    max_completion_tokens: z.number().int().min(1).nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
    stop: z.union([z.string(), z.array(z.string()).max(4, 'At most 4 stop sequences are allowed.')]).nullish(),
    presence_penalty: z.number().min(-2).max(2).nullish(),
    frequency_penalty: z.number().min(-2).max(2).nullish(),
    tools: z.array(ToolSchema).nullish(),
    tool_choice: ToolChoiceSchema.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    response_format: ResponseFormatSchema.nullish(),
    seed: z.number().int().nullish(),
    user: z.string().nullish(),
    n: z.number().int().min(1).max(128).nullish(),
  })
  // Unknown fields are kept: OpenAI-compatible upstreams may accept them (logprobs, …).
  .passthrough();
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

export const FinishReasonSchema = z.enum(['stop', 'length', 'tool_calls', 'content_filter']);
export type FinishReason = z.infer<typeof FinishReasonSchema>;

export const ChatUsageSchema = z.object({
  prompt_tokens: z.number().int().describe('Every input token: uncached, read from and written to the prompt cache.'),
  completion_tokens: z.number().int().describe('Every output token, reasoning included.'),
  total_tokens: z.number().int(),
  prompt_tokens_details: z
    .object({ cached_tokens: z.number().int().nullish().describe('Of prompt_tokens, read from the prompt cache.') })
    .nullish(),
  completion_tokens_details: z
    .object({ reasoning_tokens: z.number().int().nullish().describe('Of completion_tokens, reasoning tokens.') })
    .nullish(),
  cost_usd: z
    .number()
    .optional()
    .describe("The request's cost in USD (docs/pricing.md); only in a stream's final usage chunk. Non-streamed replies give it in the x-gateway-cost-usd header."),
});
export type ChatUsage = z.infer<typeof ChatUsageSchema>;

export const ChatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        tool_calls: z.array(ToolCallSchema).optional(),
        refusal: z.string().nullish(),
      }),
      finish_reason: FinishReasonSchema,
      logprobs: z.unknown().optional(),
    }),
  ),
  usage: ChatUsageSchema,
  system_fingerprint: z.string().nullish(),
});
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;

export const ToolCallDeltaSchema = z.object({
  index: z.number().int(),
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
});
export type ToolCallDelta = z.infer<typeof ToolCallDeltaSchema>;

/** One `data:` event of a streamed reply (decisions.md §5). */
export const ChatCompletionChunkSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      delta: z.object({
        role: z.literal('assistant').optional(),
        content: z.string().nullish(),
        tool_calls: z.array(ToolCallDeltaSchema).optional(),
        refusal: z.string().nullish(),
      }),
      finish_reason: FinishReasonSchema.nullable(),
      logprobs: z.unknown().optional(),
    }),
  ),
  usage: ChatUsageSchema.nullish(),
  system_fingerprint: z.string().nullish(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;

export const chatCompletionsContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/chat/completions',
    summary: 'Create a chat completion',
    description:
      'Sends a conversation to the model named by `model` and returns its reply. With `stream: true` the reply ' +
      'is a `text/event-stream` of `chat.completion.chunk` events ending with `data: [DONE]`.',
    body: ChatCompletionRequestSchema,
    responses: { 200: ChatCompletionSchema, ...errorResponses },
    metadata: { auth: 'api-key', streamChunk: ChatCompletionChunkSchema } as const,
  },
});
