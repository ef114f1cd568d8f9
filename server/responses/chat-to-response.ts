import type { ChatCompletion, FinishReason, OutputItem, ResponseObject, ResponsesRequest, ResponsesUsage, ToolCall } from '../../contract';
import type { TokenUsage } from '../providers/types';

/**
 * The gateway's chat reply -> a Responses `response` object (docs/openai-responses.md).
 * finish_reason: `stop`/`tool_calls` -> status `completed`; `length` -> `incomplete` with
 * reason `max_output_tokens`; `content_filter` -> `incomplete` with reason `content_filter`.
 */

export interface ResponseIds {
  /** A fresh random id part (letters and digits). */
  generateId: () => string;
  now: () => number;
}

/** The request's settings a response object repeats, and the fields OpenAI always sends. */
export function responseSkeleton(request: ResponsesRequest, id: string, model: string, createdAt: number): ResponseObject {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    // Nothing is stored, whatever the request said (docs/openai-responses.md).
    store: false,
    temperature: request.temperature ?? 1,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    usage: null,
    user: request.user ?? null,
  };
}

/**
 * Responses usage from the gateway's token counts. The one place that maps them: cached
 * prompt tokens and reasoning tokens are 0 until the provider usage carries them.
 */
export function toResponsesUsage(usage: TokenUsage & { cachedTokens?: number; reasoningTokens?: number }): ResponsesUsage {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** Final status fields for a finish reason (null: the upstream gave none). */
export function statusFor(finishReason: FinishReason | null): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** A tool call as the output item the client expects: custom tools get their string back. */
export function toolCallItem(call: ToolCall, customTools: ReadonlySet<string>, id: string): OutputItem {
  const { name, arguments: args } = call.function;
  if (customTools.has(name))
    return { type: 'custom_tool_call', id, call_id: call.id, name, input: customToolInput(args), status: 'completed' };
  return { type: 'function_call', id, call_id: call.id, name, arguments: args, status: 'completed' };
}

/** The `input` string of a custom tool's call arguments; the raw text when they are not `{"input": string}`. */
export function customToolInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { input?: unknown }).input === 'string')
      return (parsed as { input: string }).input;
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return args;
}

/**
 * Whether the reply shows the model's reasoning: as OpenAI returns reasoning summaries only to
 * a request that sets `reasoning.summary` (docs/openai-responses.md, "Reasoning").
 */
export function showsReasoning(request: ResponsesRequest): boolean {
  return typeof request.reasoning?.summary === 'string' && request.reasoning.summary !== '';
}

/** The reasoning output item: the upstream's reasoning text as one `summary_text`. */
export function reasoningItem(id: string, text: string): OutputItem {
  return { type: 'reasoning', id, summary: [{ type: 'summary_text', text }] };
}

export function chatToResponse(
  request: ResponsesRequest,
  completion: ChatCompletion,
  usage: TokenUsage,
  customTools: ReadonlySet<string>,
  ids: ResponseIds,
): ResponseObject {
  const response = responseSkeleton(request, `resp_${ids.generateId()}`, completion.model, Math.floor(ids.now() / 1000));
  const choice = completion.choices[0];
  const output: OutputItem[] = [];
  if (choice) {
    const { content, refusal, tool_calls: toolCalls, reasoning_content: reasoning } = choice.message;
    if (reasoning && showsReasoning(request)) output.push(reasoningItem(`rs_${ids.generateId()}`, reasoning));
    if (content || refusal) {
      output.push({
        type: 'message',
        id: `msg_${ids.generateId()}`,
        status: 'completed',
        role: 'assistant',
        content: refusal ? [{ type: 'refusal', refusal }] : [{ type: 'output_text', text: content ?? '', annotations: [], logprobs: [] }],
      });
    }
    for (const call of toolCalls ?? []) output.push(toolCallItem(call, customTools, `fc_${ids.generateId()}`));
  }
  return { ...response, ...statusFor(choice?.finish_reason ?? null), output, usage: toResponsesUsage(usage) };
}
