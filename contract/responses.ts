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

export const InputTextPartSchema = z.object({ type: z.literal('input_text'), text: z.string().describe('The text.') }).passthrough();
export const InputImagePartSchema = z
  .object({
    type: z.literal('input_image'),
    image_url: z.string().min(1).nullish().describe('An https:// address or a `data:image/...;base64,` URL.'),
    file_id: z.string().nullish().describe("An id from OpenAI's Files API (pass-through only)."),
    detail: z.enum(['auto', 'low', 'high']).nullish().describe('How closely the model looks at the image.'),
  })
  .passthrough();
export const OutputTextPartSchema = z
  .object({ type: z.literal('output_text'), text: z.string().describe('Text the model wrote in an earlier turn.') })
  .passthrough();
export const RefusalPartSchema = z
  .object({ type: z.literal('refusal'), refusal: z.string().describe("The model's refusal in an earlier turn.") })
  .passthrough();
/** Parts the translated path cannot send (input_file, input_audio, …) are kept for pass-through. */
export const OtherPartSchema = z
  .object({ type: z.string().describe('Another part type (`input_file`, `input_audio`, …), passed as it came.') })
  .passthrough();
export const InputContentPartSchema = z.union([
  InputTextPartSchema,
  InputImagePartSchema,
  OutputTextPartSchema,
  RefusalPartSchema,
  OtherPartSchema,
]);
export type InputContentPart = z.infer<typeof InputContentPartSchema>;

export const MessageItemSchema = z
  .object({
    // openai-node's EasyInputMessage has no `type`; ResponseInputItem.Message has 'message'.
    type: z.literal('message').optional(),
    role: z.enum(['user', 'assistant', 'system', 'developer']).describe('Who speaks; `system` and `developer` give instructions.'),
    content: z.union([z.string(), z.array(InputContentPartSchema)]).describe('A text, or content parts.'),
    id: z.string().nullish().describe("The item's id, when it is an earlier output item."),
    status: z.string().nullish().describe("The item's status, when it is an earlier output item."),
  })
  .passthrough();
export type MessageItem = z.infer<typeof MessageItemSchema>;

const callIdField = z.string().describe('Identifies the call; its output item answers it with this `call_id`.');
const answeredCallIdField = z.string().describe('The `call_id` of the call this answers.');
const itemIdField = z.string().nullish().describe("The item's id in the earlier response.");
const callOutputField = z.union([z.string(), z.array(InputContentPartSchema)]).describe("The tool's result: a text, or content parts.");
export const FunctionCallItemSchema = z
  .object({
    type: z.literal('function_call'),
    call_id: callIdField,
    name: z.string().describe('The function the model called.'),
    arguments: z.string().describe('Its arguments as a JSON text.'),
    id: itemIdField,
  })
  .passthrough();
export const FunctionCallOutputItemSchema = z
  .object({ type: z.literal('function_call_output'), call_id: answeredCallIdField, output: callOutputField })
  .passthrough();
export const CustomToolCallItemSchema = z
  .object({
    type: z.literal('custom_tool_call'),
    call_id: callIdField,
    name: z.string().describe('The custom tool the model called.'),
    input: z.string().describe('The text the model wrote for the tool.'),
    id: itemIdField,
  })
  .passthrough();
export const CustomToolCallOutputItemSchema = z
  .object({ type: z.literal('custom_tool_call_output'), call_id: answeredCallIdField, output: callOutputField })
  .passthrough();
export const ReasoningItemSchema = z
  .object({
    type: z.literal('reasoning'),
    summary: z
      .array(z.object({ type: z.string().describe('`summary_text`.'), text: z.string().describe('The summary text.') }).passthrough())
      .optional()
      .describe("Summaries of the model's reasoning in an earlier turn."),
    encrypted_content: z
      .string()
      .nullish()
      .describe('The encrypted reasoning (asked for with `include: ["reasoning.encrypted_content"]`), sent back unchanged.'),
  })
  .passthrough();
/** Any other item (item_reference, web_search_call, …): refused or dropped by the translation. */
export const OtherItemSchema = z
  .object({ type: z.string().describe('Another item type (`item_reference`, `web_search_call`, …).') })
  .passthrough();

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
    name: z.string().min(1).describe('The name the model calls it by.'),
    description: z.string().nullish().describe('What it does, for the model.'),
    parameters: z.record(z.unknown()).nullish().describe('Its arguments as a JSON Schema object.'),
    strict: z.boolean().nullish().describe('Whether the model must follow the schema exactly.'),
  })
  .passthrough();
/** A freeform tool: the model writes one string (optionally constrained by a grammar). */
export const CustomToolSchema = z
  .object({
    type: z.literal('custom'),
    name: z.string().min(1).describe('The name the model calls it by.'),
    description: z.string().nullish().describe('What it does, for the model.'),
    format: z.unknown().optional().describe("What the tool's input may be: any text (default) or text following a grammar."),
  })
  .passthrough();
/** Hosted tools the upstream runs itself (web_search, file_search, namespace, …). */
export const HostedToolSchema = z
  .object({ type: z.string().min(1).describe('A tool the upstream runs itself (`web_search`, `file_search`, …).') })
  .passthrough();
export const ResponsesToolSchema = z.union([FunctionToolSchema, CustomToolSchema, HostedToolSchema]);
export type ResponsesTool = z.infer<typeof ResponsesToolSchema>;

export const ResponsesToolChoiceSchema = z
  .union([
    z.enum(['none', 'auto', 'required']),
    z
      .object({
        type: z.enum(['function', 'custom']).describe('The kind of tool.'),
        name: z.string().describe('The tool the model must call.'),
      })
      .passthrough(),
    z.object({ type: z.string().describe('A hosted tool type the model must use.') }).passthrough(),
  ])
  .describe('`none`: no tool; `auto`: the model decides; `required`: at least one; or the one tool to call.');

export const TextFormatSchema = z
  .union([
    z.object({ type: z.literal('text') }).passthrough(),
    z.object({ type: z.literal('json_object') }).passthrough(),
    z
      .object({
        type: z.literal('json_schema'),
        name: z.string().describe('A name for the schema.'),
        schema: z.record(z.unknown()).describe('The JSON Schema the reply follows.'),
        description: z.string().nullish().describe('What the reply is, for the model.'),
        strict: z.boolean().nullish().describe('Whether the reply must follow the schema exactly.'),
      })
      .passthrough(),
  ])
  .describe('`text` (default), `json_object` (any JSON) or `json_schema` (JSON following a schema).');

export const ReasoningEffortSchema = z
  .enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh'])
  .describe('How much the model reasons before it answers.');
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

export const ResponsesRequestSchema = z
  .object({
    model: z.string().min(1).describe('A model id from GET /v1/models.'),
    input: z
      .union([z.string(), z.array(InputItemSchema)])
      .describe('A text (one user message), or input items: messages, tool calls and their outputs, reasoning.'),
    instructions: z.string().nullish().describe('A system (developer) message put before `input`.'),
    tools: z.array(ResponsesToolSchema).nullish().describe('Tools the model may call: functions, custom tools, or hosted tools.'),
    tool_choice: ResponsesToolChoiceSchema.nullish().describe('`none`, `auto`, `required`, or the one tool to call.'),
    parallel_tool_calls: z.boolean().nullish().describe('Whether the model may call several tools at once.'),
    max_output_tokens: z.number().int().min(1).nullish().describe('Most tokens the reply may have, reasoning included.'),
    temperature: z.number().min(0).max(2).nullish().describe('Sampling temperature, 0 to 2: higher is more random.'),
    top_p: z.number().min(0).max(1).nullish().describe('Nucleus sampling: only the tokens of this top probability mass.'),
    reasoning: z
      .object({
        effort: ReasoningEffortSchema.nullish().describe('How much the model reasons before it answers.'),
        summary: z.string().nullish().describe('Ask for a summary of the reasoning: `auto`, `concise` or `detailed`.'),
      })
      .passthrough()
      .nullish()
      .describe('Options of reasoning models.'),
    text: z
      .object({ format: TextFormatSchema.nullish().describe('`text` (default), `json_object` or `json_schema`.') })
      .passthrough()
      .nullish()
      .describe('Options of the text output.'),
    stream: z.boolean().nullish().describe('Reply as server-sent Responses events (text/event-stream).'),
    // Accepted; nothing is stored whatever it says (docs/openai-responses.md).
    store: z.boolean().nullish().describe('Accepted; the gateway stores nothing.'),
    previous_response_id: z.string().nullish().describe('Refused (400): nothing is stored; send the whole conversation in `input`.'),
    include: z.array(z.string()).nullish().describe('Extra output to include, e.g. `reasoning.encrypted_content`.'),
    metadata: z.record(z.string()).nullish().describe('Key-value pairs about the request.'),
    user: z.string().nullish().describe('An id of your end user, passed to the provider.'),
  })
  .passthrough();
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;

export const OutputTextSchema = z.object({
  type: z.literal('output_text'),
  text: z.string().describe('The text.'),
  annotations: z.array(z.unknown()).describe('Citations and other annotations of the text.'),
  logprobs: z.array(z.unknown()).optional().describe('Log probabilities, when asked for.'),
});
const outputItemIdField = z.string().describe('The id of this output item.');
const itemStatusField = z.enum(['in_progress', 'completed', 'incomplete']).describe("The item's status.");
const outputCallIdField = z.string().describe('Identifies the call; send its result as an output item with this `call_id`.');
export const OutputMessageSchema = z.object({
  type: z.literal('message'),
  id: outputItemIdField,
  status: itemStatusField,
  role: z.literal('assistant'),
  content: z
    .array(z.union([OutputTextSchema, z.object({ type: z.literal('refusal'), refusal: z.string().describe("The model's refusal.") })]))
    .describe('The text parts of the message, or a refusal.'),
});
export const OutputFunctionCallSchema = z.object({
  type: z.literal('function_call'),
  id: outputItemIdField,
  call_id: outputCallIdField,
  name: z.string().describe('The function the model calls.'),
  arguments: z.string().describe('Its arguments as a JSON text (the model may produce invalid JSON).'),
  status: itemStatusField,
});
export const OutputCustomToolCallSchema = z.object({
  type: z.literal('custom_tool_call'),
  id: outputItemIdField,
  call_id: outputCallIdField,
  name: z.string().describe('The custom tool the model calls.'),
  input: z.string().describe('The text the model wrote for the tool.'),
  status: itemStatusField.optional(),
});
export const OutputItemSchema = z.union([
  OutputMessageSchema,
  OutputFunctionCallSchema,
  OutputCustomToolCallSchema,
  z.object({ type: z.string().describe('Another output item (reasoning, hosted tool calls, …), passed as it came.') }).passthrough(),
]);
export type OutputItem = z.infer<typeof OutputItemSchema>;

export const ResponsesUsageSchema = z
  .object({
    input_tokens: z.number().int().describe('Every input token, cached included.'),
    input_tokens_details: z
      .object({ cached_tokens: z.number().int().describe('Of input_tokens, read from the prompt cache.') })
      .describe('The parts of input_tokens.'),
    output_tokens: z.number().int().describe('Every output token, reasoning included.'),
    output_tokens_details: z
      .object({ reasoning_tokens: z.number().int().describe('Of output_tokens, reasoning tokens.') })
      .describe('The parts of output_tokens.'),
    total_tokens: z.number().int().describe('Their sum.'),
  })
  .describe('The tokens billed for the call (docs/pricing.md).');
export type ResponsesUsage = z.infer<typeof ResponsesUsageSchema>;

export const ResponseStatusSchema = z.enum(['completed', 'failed', 'in_progress', 'incomplete', 'cancelled', 'queued']);

export const ResponseObjectSchema = z
  .object({
    id: z.string().describe('The id of this response.'),
    object: z.literal('response'),
    created_at: z.number().describe('Unix time (seconds) of the response.'),
    status: ResponseStatusSchema,
    error: z
      .object({
        code: z.string().describe('The error code, e.g. `upstream_unavailable`.'),
        message: z.string().describe('What went wrong, for a person.'),
      })
      .nullable()
      .describe('Why the response failed; null otherwise.'),
    incomplete_details: z
      .object({ reason: z.string().describe('`max_output_tokens` or `content_filter`.') })
      .nullable()
      .describe('Why the response is incomplete; null otherwise.'),
    model: z.string().describe('The model that answered.'),
    output: z.array(OutputItemSchema).describe('The output items in order: messages, function calls, …'),
    usage: ResponsesUsageSchema.nullable().describe('The tokens billed for the call; null before the end of a stream.'),
  })
  .passthrough();
export type ResponseObject = z.infer<typeof ResponseObjectSchema>;

/** One SSE event of a streamed response: `event: <type>` and its JSON, which repeats the type. */
export const ResponseStreamEventSchema = z
  .object({
    type: z.string().describe('The event type, as in its `event:` line (`response.output_text.delta`, …).'),
    sequence_number: z.number().int().describe('The position of the event in the stream, from 0.'),
  })
  .passthrough()
  .describe('One event of a streamed response; the other fields depend on `type`.');

export type ResponseStreamEvent = z.infer<typeof ResponseStreamEventSchema>;

export const responsesContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/responses',
    summary: 'Create a model response (OpenAI Responses API)',
    description:
      'Sends `input` to the model named by `model` and returns a `response` object. Stateless: `store` is accepted but ' +
      'nothing is stored, and `previous_response_id` or `item_reference` inputs are refused. With `stream: true` the ' +
      'reply is a `text/event-stream` of Responses events (`event: <type>` and its `data:`), from `response.created` to ' +
      '`response.completed` or `response.incomplete`, without `[DONE]`; a failure after the stream started ends it with ' +
      'one `response.failed` event.',
    body: ResponsesRequestSchema,
    responses: { 200: ResponseObjectSchema, ...errorResponses },
    metadata: {
      auth: 'api-key',
      streamChunk: ResponseStreamEventSchema,
      examples: {
        request: { model: 'mock-chat', instructions: 'Answer briefly.', input: 'What is a gateway?', max_output_tokens: 64 },
        response: {
          id: 'resp_9f2c1a7e4b',
          object: 'response',
          created_at: 1767225600,
          status: 'completed',
          error: null,
          incomplete_details: null,
          model: 'mock-chat',
          output: [
            {
              type: 'message',
              id: 'msg_9f2c1a7e4b',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: 'A single entry point in front of several services.', annotations: [] }],
            },
          ],
          usage: {
            input_tokens: 18,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 10,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 28,
          },
        },
        stream:
          'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response",' +
          '"created_at":1767225600,"status":"in_progress","error":null,"incomplete_details":null,"model":"mock-chat","output":[],"usage":null}}\n\n' +
          'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1",' +
          '"output_index":0,"content_index":0,"delta":"Hello"}\n\n' +
          'event: response.completed\ndata: {"type":"response.completed","sequence_number":9,"response":{"id":"resp_1",' +
          '"object":"response","created_at":1767225600,"status":"completed","error":null,"incomplete_details":null,' +
          '"model":"mock-chat","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant",' +
          '"content":[{"type":"output_text","text":"Hello","annotations":[]}]}],"usage":{"input_tokens":18,"input_tokens_details":{"cached_tokens":0},' +
          '"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":19}}}\n\n',
      },
    } as const,
  },
});
