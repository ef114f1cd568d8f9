import type { ScriptedReply, SseStep } from './mock-openai-upstream';

/**
 * Replies of an upstream serving OpenAI's Responses API (POST /v1/responses:
 * https://platform.openai.com/docs/api-reference/responses/create and its streaming events,
 * https://platform.openai.com/docs/api-reference/responses-streaming), scripted on the
 * mock OpenAI upstream. Shapes follow openai-node's `Response` and `ResponseStreamEvent`.
 */

export interface ResponseUsageCounts {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
}

export function responseUsage(counts: ResponseUsageCounts) {
  return {
    input_tokens: counts.input,
    input_tokens_details: { cached_tokens: counts.cached ?? 0 },
    output_tokens: counts.output,
    output_tokens_details: { reasoning_tokens: counts.reasoning ?? 0 },
    total_tokens: counts.input + counts.output,
  };
}

/** A completed `response` object whose output is one assistant message. */
export function textResponse(model: string, text: string, counts: ResponseUsageCounts, id = 'resp_upstream_1') {
  return {
    id,
    object: 'response',
    created_at: 1_767_225_600,
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output: [
      {
        type: 'message',
        id: 'msg_upstream_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
      },
    ],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: responseUsage(counts),
    user: null,
    metadata: {},
  };
}

/** The event stream of `textResponse`, the text in the given pieces. No `[DONE]`: the Responses API sends none. */
export function textResponseStream(model: string, pieces: string[], counts: ResponseUsageCounts): ScriptedReply {
  const final = textResponse(model, pieces.join(''), counts);
  const inProgress = { ...final, status: 'in_progress', output: [], usage: null };
  const message = final.output[0] as (typeof final.output)[number];
  const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
  let sequence = 0;
  const step = (type: string, fields: Record<string, unknown>): SseStep => ({
    event: type,
    data: { type, sequence_number: sequence++, ...fields },
  });
  const base = { item_id: message.id, output_index: 0 };
  const events: SseStep[] = [
    step('response.created', { response: inProgress }),
    step('response.in_progress', { response: inProgress }),
    step('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } }),
    step('response.content_part.added', { ...base, content_index: 0, part }),
    ...pieces.map((delta) => step('response.output_text.delta', { ...base, content_index: 0, delta, logprobs: [] })),
    step('response.output_text.done', { ...base, content_index: 0, text: pieces.join(''), logprobs: [] }),
    step('response.content_part.done', { ...base, content_index: 0, part: message.content[0] }),
    step('response.output_item.done', { output_index: 0, item: message }),
    step('response.completed', { response: final }),
  ];
  return { type: 'sse', events, done: false };
}
