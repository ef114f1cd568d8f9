import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors.js';

const c = initContract();

// docs/chat-and-streaming.md: the OpenAI message shapes clients send today:
// `developer` and `tool` roles, `tool_calls` on assistant messages, content parts.
export const TextPartSchema = z
  .object({ type: z.literal('text'), text: z.string().describe('The text.') })
  .describe('A text part of a message.');
export const ImagePartSchema = z
  .object({
    type: z.literal('image_url'),
    image_url: z
      .object({
        url: z.string().min(1).describe('An https:// address or a `data:image/...;base64,` URL.'),
        detail: z.enum(['auto', 'low', 'high']).optional().describe('How closely the model looks at the image.'),
      })
      .describe('The image.'),
  })
  .describe('An image part of a user message (models with the `vision` capability).');
export const ContentPartSchema = z.discriminatedUnion('type', [TextPartSchema, ImagePartSchema]);
export type ContentPart = z.infer<typeof ContentPartSchema>;

const TextContentSchema = z.union([z.string(), z.array(TextPartSchema).min(1)]).describe('A text, or text parts.');
const UserContentSchema = z.union([z.string(), z.array(ContentPartSchema).min(1)]).describe('A text, or text and image parts.');

export const ToolCallSchema = z
  .object({
    id: z.string().describe('Identifies the call; a `tool` message answers it with this `tool_call_id`.'),
    type: z.literal('function'),
    function: z
      .object({
        name: z.string().describe('The function the model calls.'),
        arguments: z.string().describe('Its arguments as a JSON text (the model may produce invalid JSON).'),
      })
      .describe('The function and its arguments.'),
  })
  .describe('A function call the model asks for.');
export type ToolCall = z.infer<typeof ToolCallSchema>;

const nameField = z.string().optional().describe('An optional name for the participant.');

export const SystemMessageSchema = z
  .object({ role: z.literal('system'), content: TextContentSchema, name: nameField })
  .describe('Instructions for the model.');
export const DeveloperMessageSchema = z
  .object({ role: z.literal('developer'), content: TextContentSchema, name: nameField })
  .describe("Instructions for the model (OpenAI's newer name for `system`).");
export const UserMessageSchema = z
  .object({ role: z.literal('user'), content: UserContentSchema, name: nameField })
  .describe('What the user says: text, or text and image parts.');
export const AssistantMessageSchema = z
  .object({
    role: z.literal('assistant'),
    content: TextContentSchema.nullish().describe('What the model said; null when it only called tools.'),
    name: nameField,
    tool_calls: z.array(ToolCallSchema).optional().describe('The calls the model made, answered by the `tool` messages after it.'),
    refusal: z.string().nullish().describe("The model's refusal, when it refused."),
  })
  .describe('An earlier reply of the model.');
export const ToolMessageSchema = z
  .object({
    role: z.literal('tool'),
    content: TextContentSchema,
    tool_call_id: z.string().describe('The `id` of the tool call this answers.'),
  })
  .describe("A tool's result, answering one of the model's tool calls.");

export const MessageSchema = z
  .discriminatedUnion('role', [SystemMessageSchema, DeveloperMessageSchema, UserMessageSchema, AssistantMessageSchema, ToolMessageSchema])
  .describe('One message of the conversation; `role` says which kind.');
export type Message = z.infer<typeof MessageSchema>;

export const ToolSchema = z
  .object({
    type: z.literal('function'),
    function: z
      .object({
        name: z.string().min(1).describe('The name the model calls it by.'),
        description: z.string().optional().describe('What it does, for the model.'),
        parameters: z.record(z.unknown()).optional().describe('Its arguments as a JSON Schema object.'),
        strict: z.boolean().nullish().describe('Whether the model must follow the schema exactly (providers that support it).'),
      })
      .describe('The function.'),
  })
  .describe('A function the model may call.');
export type Tool = z.infer<typeof ToolSchema>;

export const ToolChoiceSchema = z
  .union([
    z.enum(['none', 'auto', 'required']),
    z.object({
      type: z.literal('function'),
      function: z.object({ name: z.string().describe('The function to call.') }).describe('The function to call.'),
    }),
  ])
  .describe('`none`: no tool; `auto`: the model decides; `required`: at least one; or the one function to call.');
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;

export const ResponseFormatSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('text') }),
    z.object({ type: z.literal('json_object') }),
    z.object({
      type: z.literal('json_schema'),
      json_schema: z
        .object({
          name: z.string().describe('A name for the schema.'),
          description: z.string().optional().describe('What the reply is, for the model.'),
          schema: z.record(z.unknown()).optional().describe('The JSON Schema the reply follows.'),
          strict: z.boolean().nullish().describe('Whether the reply must follow the schema exactly.'),
        })
        .describe('The schema of the reply.'),
    }),
  ])
  .describe(
    '`text` (default), `json_object` (any JSON) or `json_schema` (JSON following a schema); JSON needs the `json_mode` capability.',
  );
export type ResponseFormat = z.infer<typeof ResponseFormatSchema>;

export const ChatCompletionRequestSchema = z
  .object({
    model: z.string().min(1).describe('A model id from GET /v1/models.'),
    messages: z.array(MessageSchema).min(1).describe('The conversation so far, oldest first.'),
    temperature: z.number().min(0).max(2).nullish().describe('Sampling temperature, 0 to 2: higher is more random.'),
    top_p: z.number().min(0).max(1).nullish().describe('Nucleus sampling: only the tokens of this top probability mass.'),
    max_tokens: z.number().int().min(1).nullish().describe("Most tokens the reply may have (the model's default when absent)."),
    max_completion_tokens: z.number().int().min(1).nullish().describe("OpenAI's newer name for `max_tokens`."),
    stream: z.boolean().nullish().describe('Reply as server-sent events of `chat.completion.chunk` (text/event-stream).'),
    stream_options: z
      .object({ include_usage: z.boolean().optional().describe('Send a last chunk with `usage` and no choices.') })
      .nullish()
      .describe('Options of a streamed reply.'),
    stop: z
      .union([z.string(), z.array(z.string()).max(4, 'At most 4 stop sequences are allowed.')])
      .nullish()
      .describe('Up to 4 sequences where the model stops.'),
    presence_penalty: z.number().min(-2).max(2).nullish().describe('-2 to 2: positive values favour new topics.'),
    frequency_penalty: z.number().min(-2).max(2).nullish().describe('-2 to 2: positive values discourage repetition.'),
    tools: z.array(ToolSchema).nullish().describe('Functions the model may call (the `function_calling` capability).'),
    tool_choice: ToolChoiceSchema.nullish(),
    parallel_tool_calls: z.boolean().nullish().describe('Whether the model may call several tools at once.'),
    response_format: ResponseFormatSchema.nullish(),
    seed: z.number().int().nullish().describe('For repeatable sampling, where the provider supports it.'),
    user: z.string().nullish().describe('An id of your end user, passed to the provider.'),
    n: z.number().int().min(1).max(128).nullish().describe('How many choices to return (more than 1 only on providers that support it).'),
  })
  // Unknown fields are kept: OpenAI-compatible upstreams may accept them (logprobs, …).
  .passthrough()
  .describe("A chat completion request, as OpenAI's API takes it; other fields are passed to OpenAI-compatible providers.");
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

export const FinishReasonSchema = z
  .enum(['stop', 'length', 'tool_calls', 'content_filter'])
  .describe('Why the reply ended: a natural stop or a stop sequence, the token limit, tool calls, or a content filter.');
export type FinishReason = z.infer<typeof FinishReasonSchema>;

export const ChatUsageSchema = z
  .object({
    prompt_tokens: z.number().int().describe('Every input token: uncached, read from and written to the prompt cache.'),
    completion_tokens: z.number().int().describe('Every output token, reasoning included.'),
    total_tokens: z.number().int().describe('Their sum.'),
    prompt_tokens_details: z
      .object({ cached_tokens: z.number().int().nullish().describe('Of prompt_tokens, read from the prompt cache.') })
      .nullish()
      .describe('The parts of prompt_tokens.'),
    completion_tokens_details: z
      .object({ reasoning_tokens: z.number().int().nullish().describe('Of completion_tokens, reasoning tokens.') })
      .nullish()
      .describe('The parts of completion_tokens.'),

    cost_usd: z
      .number()
      .optional()
      .describe(
        "The request's cost in USD (docs/pricing.md); only in a stream's final usage chunk. Non-streamed replies give it in the x-gateway-cost-usd header.",
      ),
  })
  .describe('The tokens billed for the call (docs/pricing.md).');
export type ChatUsage = z.infer<typeof ChatUsageSchema>;

export const ChatCompletionSchema = z
  .object({
    id: z.string().describe('The id of this reply.'),
    object: z.literal('chat.completion'),
    created: z.number().int().describe('Unix time (seconds) of the reply.'),
    model: z.string().describe('The model that answered: the requested one, or the fallback that served it.'),
    choices: z
      .array(
        z.object({
          index: z.number().int().describe('The position of this choice.'),
          message: z
            .object({
              role: z.literal('assistant'),
              content: z.string().nullable().describe('The reply text; null when the model only called tools.'),
              tool_calls: z.array(ToolCallSchema).optional().describe('The tools the model calls.'),
              refusal: z.string().nullish().describe("The model's refusal, when it refused."),
              reasoning_content: z
                .string()
                .optional()
                .describe("The model's reasoning text, where the provider returns it (docs/chat-and-streaming.md)."),
            })
            .describe("The model's reply."),
          finish_reason: FinishReasonSchema,
          logprobs: z.unknown().optional().describe("The provider's log probabilities, when asked for."),
        }),
      )
      .describe('The replies: one unless `n` asked for more.'),
    usage: ChatUsageSchema,
    system_fingerprint: z.string().nullish().describe("The provider's backend configuration, when it says."),
  })
  .describe('A chat completion.');
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;

export const ToolCallDeltaSchema = z
  .object({
    index: z.number().int().describe('Which tool call of the reply this piece belongs to.'),
    id: z.string().optional().describe("The call's id, in its first piece."),
    type: z.literal('function').optional(),
    function: z
      .object({
        name: z.string().optional().describe("The function's name, in its first piece."),
        arguments: z.string().optional().describe("The next piece of the arguments' JSON text."),
      })
      .optional()
      .describe('The pieces of the function call.'),
  })
  .describe('A piece of a tool call in a streamed reply.');
export type ToolCallDelta = z.infer<typeof ToolCallDeltaSchema>;

/** One `data:` event of a streamed reply (docs/chat-and-streaming.md). */
export const ChatCompletionChunkSchema = z
  .object({
    id: z.string().describe('The same for every chunk of one reply.'),
    object: z.literal('chat.completion.chunk'),
    created: z.number().int().describe('Unix time (seconds) of the reply.'),
    model: z.string().describe('The model that answered.'),
    choices: z
      .array(
        z.object({
          index: z.number().int().describe('The position of this choice.'),
          delta: z
            .object({
              role: z.literal('assistant').optional().describe('In the first chunk.'),
              content: z.string().nullish().describe('The next piece of the reply text.'),
              tool_calls: z.array(ToolCallDeltaSchema).optional().describe('Pieces of the tool calls the model makes.'),
              refusal: z.string().nullish().describe("The next piece of the model's refusal."),
              reasoning_content: z
                .string()
                .optional()
                .describe("The next piece of the model's reasoning text, where the provider returns it."),
            })
            .describe('What this chunk adds to the reply.'),
          finish_reason: FinishReasonSchema.nullable().describe("Set in the choice's last chunk; null before."),
          logprobs: z.unknown().optional().describe("The provider's log probabilities, when asked for."),
        }),
      )
      .describe('Empty in the last chunk when it carries only `usage`.'),
    usage: ChatUsageSchema.nullish().describe('In the last chunk, with `stream_options.include_usage`.'),
    system_fingerprint: z.string().nullish().describe("The provider's backend configuration, when it says."),
  })
  .describe('One `data:` event of a streamed chat completion (docs/chat-and-streaming.md).');
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;

export const chatCompletionsContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/chat/completions',
    summary: 'Create a chat completion',
    description:
      'Sends a conversation to the model named by `model` and returns its reply. With `stream: true` the reply ' +
      'is a `text/event-stream` of `chat.completion.chunk` events ending with `data: [DONE]`; an error after the stream ' +
      'started arrives as one `data: {"error": {...}}` event before the end (docs/chat-and-streaming.md).',
    body: ChatCompletionRequestSchema,
    responses: { 200: ChatCompletionSchema, ...errorResponses },
    metadata: {
      auth: 'api-key',
      streamChunk: ChatCompletionChunkSchema,
      examples: {
        request: {
          model: 'mock-chat',
          messages: [
            { role: 'system', content: 'Answer briefly.' },
            { role: 'user', content: 'What is a gateway?' },
          ],
          max_tokens: 64,
        },
        response: {
          id: 'chatcmpl-9f2c1a7e4b',
          object: 'chat.completion',
          created: 1767225600,
          model: 'mock-chat',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: 'A single entry point in front of several services.' },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 18, completion_tokens: 10, total_tokens: 28 },
        },
        stream:
          'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"mock-chat",' +
          '"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}\n\n' +
          'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"mock-chat",' +
          '"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
      },
    } as const,
  },
});
