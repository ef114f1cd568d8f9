import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors.js';

const c = initContract();

/**
 * POST /v1/responses in the OpenAI Responses API's wire format (docs/openai-responses.md),
 * modeled on openai-node's `src/resources/responses` types. Stateless: nothing is stored.
 * Every object keeps unknown fields: the pass-through path forwards the body as it came, and
 * the translated path ignores what it cannot use.
 */

export const InputTextPartSchema = z.object({ type: z.literal('input_text'), text: z.string() }).passthrough();
export const InputImagePartSchema = z
  .object({
    type: z.literal('input_image'),
    image_url: z.string().min(1).nullish(),
    file_id: z.string().nullish(),
    detail: z.enum(['auto', 'low', 'high']).nullish(),
  })
  .passthrough();
export const OutputTextPartSchema = z.object({ type: z.literal('output_text'), text: z.string() }).passthrough();
export const RefusalPartSchema = z.object({ type: z.literal('refusal'), refusal: z.string() }).passthrough();
/** Parts the translated path cannot send (input_file, input_audio, …) are kept for pass-through. */
export const OtherPartSchema = z.object({ type: z.string() }).passthrough();
export const InputContentPartSchema = z.union([InputTextPartSchema, InputImagePartSchema, OutputTextPartSchema, RefusalPartSchema, OtherPartSchema]);
export type InputContentPart = z.infer<typeof InputContentPartSchema>;

export const MessageItemSchema = z
  .object({
    // openai-node's EasyInputMessage has no `type`; ResponseInputItem.Message has 'message'.
    type: z.literal('message').optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: z.union([z.string(), z.array(InputContentPartSchema)]),
    id: z.string().nullish(),
    status: z.string().nullish(),
  })
  .passthrough();
export type MessageItem = z.infer<typeof MessageItemSchema>;

export const FunctionCallItemSchema = z
  .object({ type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string(), id: z.string().nullish() })
  .passthrough();
export const FunctionCallOutputItemSchema = z
  .object({
    type: z.literal('function_call_output'),
    call_id: z.string(),
    // A string, or content parts (input_text, input_image, …).
    output: z.union([z.string(), z.array(InputContentPartSchema)]),
  })
  .passthrough();
export const CustomToolCallItemSchema = z
  .object({ type: z.literal('custom_tool_call'), call_id: z.string(), name: z.string(), input: z.string(), id: z.string().nullish() })
  .passthrough();
export const CustomToolCallOutputItemSchema = z
  .object({ type: z.literal('custom_tool_call_output'), call_id: z.string(), output: z.union([z.string(), z.array(InputContentPartSchema)]) })
  .passthrough();
export const ReasoningItemSchema = z
  .object({
    type: z.literal('reasoning'),
    summary: z.array(z.object({ type: z.string(), text: z.string() }).passthrough()).optional(),
    encrypted_content: z.string().nullish(),
  })
  .passthrough();
/** Any other item (item_reference, web_search_call, …): refused or dropped by the translation. */
export const OtherItemSchema = z.object({ type: z.string() }).passthrough();

export const InputItemSchema = z.union([
  MessageItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  CustomToolCallItemSchema,
  CustomToolCallOutputItemSchema,
  ReasoningItemSchema,
  OtherItemSchema,
]);
export type InputItem = z.infer<typeof InputItemSchema>;

export const FunctionToolSchema = z
  .object({
    type: z.literal('function'),
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  })
  .passthrough();
/** A freeform tool: the model writes one string (optionally constrained by a grammar). */
export const CustomToolSchema = z
  .object({ type: z.literal('custom'), name: z.string().min(1), description: z.string().nullish(), format: z.unknown().optional() })
  .passthrough();
/** Hosted tools the upstream runs itself (web_search, file_search, namespace, …). */
export const HostedToolSchema = z.object({ type: z.string().min(1) }).passthrough();
export const ResponsesToolSchema = z.union([FunctionToolSchema, CustomToolSchema, HostedToolSchema]);
export type ResponsesTool = z.infer<typeof ResponsesToolSchema>;

export const ResponsesToolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.enum(['function', 'custom']), name: z.string() }).passthrough(),
  z.object({ type: z.string() }).passthrough(),
]);

export const TextFormatSchema = z.union([
  z.object({ type: z.literal('text') }).passthrough(),
  z.object({ type: z.literal('json_object') }).passthrough(),
  z
    .object({
      type: z.literal('json_schema'),
      name: z.string(),
      schema: z.record(z.unknown()),
      description: z.string().nullish(),
      strict: z.boolean().nullish(),
    })
    .passthrough(),
]);

export const ReasoningEffortSchema = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);

export const ResponsesRequestSchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(InputItemSchema)]),
    instructions: z.string().nullish(),
    tools: z.array(ResponsesToolSchema).nullish(),
    tool_choice: ResponsesToolChoiceSchema.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    max_output_tokens: z.number().int().min(1).nullish(),
    temperature: z.number().min(0).max(2).nullish(),
    top_p: z.number().min(0).max(1).nullish(),
    reasoning: z.object({ effort: ReasoningEffortSchema.nullish(), summary: z.string().nullish() }).passthrough().nullish(),
    text: z.object({ format: TextFormatSchema.nullish() }).passthrough().nullish(),
    stream: z.boolean().nullish(),
    // Accepted; nothing is stored whatever it says (docs/openai-responses.md).
    store: z.boolean().nullish(),
    previous_response_id: z.string().nullish(),
    include: z.array(z.string()).nullish(),
    metadata: z.record(z.string()).nullish(),
    user: z.string().nullish(),
  })
  .passthrough();
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;

export const OutputTextSchema = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()),
  logprobs: z.array(z.unknown()).optional(),
});
export const OutputMessageSchema = z.object({
  type: z.literal('message'),
  id: z.string(),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
  role: z.literal('assistant'),
  content: z.array(z.union([OutputTextSchema, z.object({ type: z.literal('refusal'), refusal: z.string() })])),
});
export const OutputFunctionCallSchema = z.object({
  type: z.literal('function_call'),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
});
export const OutputCustomToolCallSchema = z.object({
  type: z.literal('custom_tool_call'),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  input: z.string(),
  status: z.enum(['in_progress', 'completed', 'incomplete']).optional(),
});
export const OutputItemSchema = z.union([OutputMessageSchema, OutputFunctionCallSchema, OutputCustomToolCallSchema, z.object({ type: z.string() }).passthrough()]);
export type OutputItem = z.infer<typeof OutputItemSchema>;

export const ResponsesUsageSchema = z.object({
  input_tokens: z.number().int(),
  input_tokens_details: z.object({ cached_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
  total_tokens: z.number().int(),
});
export type ResponsesUsage = z.infer<typeof ResponsesUsageSchema>;

export const ResponseStatusSchema = z.enum(['completed', 'failed', 'in_progress', 'incomplete', 'cancelled', 'queued']);

export const ResponseObjectSchema = z
  .object({
    id: z.string(),
    object: z.literal('response'),
    created_at: z.number(),
    status: ResponseStatusSchema,
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    incomplete_details: z.object({ reason: z.string() }).nullable(),
    model: z.string(),
    output: z.array(OutputItemSchema),
    usage: ResponsesUsageSchema.nullable(),
  })
  .passthrough();
export type ResponseObject = z.infer<typeof ResponseObjectSchema>;

/** One SSE event of a streamed response: `event: <type>` and its JSON, which repeats the type. */
export const ResponseStreamEventSchema = z.object({ type: z.string(), sequence_number: z.number().int() }).passthrough();
export type ResponseStreamEvent = z.infer<typeof ResponseStreamEventSchema>;

export const responsesContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/responses',
    summary: 'Create a model response (OpenAI Responses API)',
    description:
      'Sends `input` to the model named by `model` and returns a `response` object. Stateless: `store` is accepted but ' +
      'nothing is stored, and `previous_response_id` or `item_reference` inputs are refused. With `stream: true` the ' +
      'reply is a `text/event-stream` of Responses events (`response.created` … `response.completed`).',
    body: ResponsesRequestSchema,
    responses: { 200: ResponseObjectSchema, ...errorResponses },
    metadata: { auth: 'api-key', streamChunk: ResponseStreamEventSchema } as const,
  },
});
