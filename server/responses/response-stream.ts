import type { ChatCompletionChunk, FinishReason, OutputItem, ResponseObject, ResponsesUsage } from '../../contract';
import { customToolInput, reasoningItem, statusFor } from './chat-to-response';

/**
 * Chat chunks -> Responses stream events, as OpenAI documents them (docs/openai-responses.md):
 *
 *   response.created, response.in_progress
 *   per output item: response.output_item.added, then
 *     reasoning: response.reasoning_summary_part.added, response.reasoning_summary_text.delta…,
 *                response.reasoning_summary_text.done, response.reasoning_summary_part.done
 *                (only when the request set `reasoning.summary`: chat-to-response.ts showsReasoning)
 *     text:      response.content_part.added, response.output_text.delta…,
 *                response.output_text.done, response.content_part.done
 *     function:  response.function_call_arguments.delta…, response.function_call_arguments.done
 *     custom:    response.custom_tool_call_input.delta, response.custom_tool_call_input.done
 *   response.output_item.done (per item, in output order, at the end)
 *   response.completed | response.incomplete (with usage) | response.failed
 *
 * Every event carries `type` and an increasing `sequence_number`. Items stay open until the
 * upstream's reply ends, since a chat stream may interleave text and tool calls.
 */

export type StreamEvent = { type: string; sequence_number: number } & Record<string, unknown>;

interface OpenText {
  kind: 'text';
  outputIndex: number;
  id: string;
  text: string;
}

interface OpenReasoning {
  kind: 'reasoning';
  outputIndex: number;
  id: string;
  text: string;
}

interface OpenCall {
  kind: 'call';
  outputIndex: number;
  id: string;
  callId: string;
  name: string;
  arguments: string;
  custom: boolean;
}

export class ResponseStreamTranslator {
  private sequence = 0;
  private readonly items: (OpenText | OpenCall | OpenReasoning)[] = [];
  private text: OpenText | null = null;
  private reasoning: OpenReasoning | null = null;
  /** By the chat tool call's `index`. */
  private readonly calls = new Map<number, OpenCall>();
  private finishReason: FinishReason | null = null;
  private ended = false;
  /** Reasoning text not shown (no `reasoning.summary`), still output the gateway counts. */
  private hiddenReasoning = '';

  constructor(
    private readonly response: ResponseObject,
    private readonly customTools: ReadonlySet<string>,
    private readonly generateId: () => string,
    /** Whether reasoning text becomes reasoning items (the request set `reasoning.summary`). */
    private readonly showReasoning = false,
  ) {}

  /** The two opening events; the response object is a snapshot (later changes do not show). */
  start(): StreamEvent[] {
    const snapshot = { ...this.response, output: [] };
    return [this.event('response.created', { response: snapshot }), this.event('response.in_progress', { response: snapshot })];
  }

  /** All text and arguments so far (the gateway's own count when the upstream reports no usage). */
  outputText(): string {
    let all = '';
    for (const item of this.items) all += item.kind === 'call' ? item.arguments : item.text;
    return all + this.hiddenReasoning;
  }

  push(chunk: ChatCompletionChunk): StreamEvent[] {
    const events: StreamEvent[] = [];
    const choice = chunk.choices[0];
    if (!choice) return events;
    const { content, refusal, tool_calls: toolCalls, reasoning_content: reasoning } = choice.delta;
    if (reasoning) this.pushReasoning(reasoning, events);
    const text = content || refusal;
    if (text) {
      this.reasoning = null;
      const open = this.text ?? this.openText(events);
      open.text += text;
      events.push(
        this.event('response.output_text.delta', {
          item_id: open.id,
          output_index: open.outputIndex,
          content_index: 0,
          delta: text,
          logprobs: [],
        }),
      );
    }
    for (const delta of toolCalls ?? []) {
      let call = this.calls.get(delta.index);
      if (!call) {
        // After a tool call starts, later text is a new message item.
        this.text = null;
        this.reasoning = null;
        const name = delta.function?.name ?? '';
        call = {
          kind: 'call',
          outputIndex: this.items.length,
          id: `fc_${this.generateId()}`,
          callId: delta.id ?? `call_${this.generateId()}`,
          name,
          arguments: '',
          custom: this.customTools.has(name),
        };
        this.calls.set(delta.index, call);
        this.items.push(call);
        events.push(this.event('response.output_item.added', { output_index: call.outputIndex, item: this.callItem(call, 'in_progress') }));
      }
      const piece = delta.function?.arguments;
      if (piece) {
        call.arguments += piece;
        // A custom tool's input is the string inside the arguments: sent whole at the end.
        if (!call.custom)
          events.push(
            this.event('response.function_call_arguments.delta', { item_id: call.id, output_index: call.outputIndex, delta: piece }),
          );
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  /** Closes every item and ends with response.completed (or .incomplete). */
  finish(usage: ResponsesUsage): StreamEvent[] {
    const events: StreamEvent[] = [];
    const output: OutputItem[] = [];
    for (const item of this.items) {
      const base = { item_id: item.id, output_index: item.outputIndex };
      if (item.kind === 'reasoning') {
        const part = { type: 'summary_text', text: item.text };
        events.push(this.event('response.reasoning_summary_text.done', { ...base, summary_index: 0, text: item.text }));
        events.push(this.event('response.reasoning_summary_part.done', { ...base, summary_index: 0, part }));
        const done = reasoningItem(item.id, item.text);
        events.push(this.event('response.output_item.done', { output_index: item.outputIndex, item: done }));
        output.push(done);
      } else if (item.kind === 'text') {
        const part = { type: 'output_text', text: item.text, annotations: [], logprobs: [] };
        events.push(this.event('response.output_text.done', { ...base, content_index: 0, text: item.text, logprobs: [] }));
        events.push(this.event('response.content_part.done', { ...base, content_index: 0, part }));
        const done: OutputItem = { type: 'message', id: item.id, status: 'completed', role: 'assistant', content: [part] };
        events.push(this.event('response.output_item.done', { output_index: item.outputIndex, item: done }));
        output.push(done);
      } else {
        if (item.custom) {
          const input = customToolInput(item.arguments);
          events.push(this.event('response.custom_tool_call_input.delta', { ...base, delta: input }));
          events.push(this.event('response.custom_tool_call_input.done', { ...base, input }));
        } else {
          events.push(this.event('response.function_call_arguments.done', { ...base, name: item.name, arguments: item.arguments }));
        }
        const done = this.callItem(item, 'completed');
        events.push(this.event('response.output_item.done', { output_index: item.outputIndex, item: done }));
        output.push(done);
      }
    }
    const status = statusFor(this.finishReason);
    const final = { ...this.response, ...status, output, usage };
    events.push(this.event(status.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: final }));
    this.ended = true;
    return events;
  }

  /** A failure after the start: response.failed, with what was produced so far left out. */
  fail(code: string, message: string): StreamEvent[] {
    if (this.ended) return [];
    this.ended = true;
    return [this.event('response.failed', { response: { ...this.response, status: 'failed', error: { code, message }, output: [] } })];
  }

  private pushReasoning(text: string, events: StreamEvent[]): void {
    if (!this.showReasoning) {
      this.hiddenReasoning += text;
      return;
    }
    let open = this.reasoning;
    if (!open) {
      open = { kind: 'reasoning', outputIndex: this.items.length, id: `rs_${this.generateId()}`, text: '' };
      this.items.push(open);
      this.reasoning = open;
      const base = { output_index: open.outputIndex };
      events.push(this.event('response.output_item.added', { ...base, item: { type: 'reasoning', id: open.id, summary: [] } }));
      events.push(
        this.event('response.reasoning_summary_part.added', {
          ...base,
          item_id: open.id,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        }),
      );
    }
    open.text += text;
    events.push(
      this.event('response.reasoning_summary_text.delta', {
        item_id: open.id,
        output_index: open.outputIndex,
        summary_index: 0,
        delta: text,
      }),
    );
  }

  private openText(events: StreamEvent[]): OpenText {
    const open: OpenText = { kind: 'text', outputIndex: this.items.length, id: `msg_${this.generateId()}`, text: '' };
    this.items.push(open);
    this.text = open;
    const base = { output_index: open.outputIndex };
    events.push(
      this.event('response.output_item.added', {
        ...base,
        item: { type: 'message', id: open.id, status: 'in_progress', role: 'assistant', content: [] },
      }),
    );
    events.push(
      this.event('response.content_part.added', {
        ...base,
        item_id: open.id,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      }),
    );
    return open;
  }

  private callItem(call: OpenCall, status: 'in_progress' | 'completed'): OutputItem {
    if (call.custom) {
      return {
        type: 'custom_tool_call',
        id: call.id,
        call_id: call.callId,
        name: call.name,
        input: status === 'completed' ? customToolInput(call.arguments) : '',
        status,
      };
    }
    return {
      type: 'function_call',
      id: call.id,
      call_id: call.callId,
      name: call.name,
      arguments: status === 'completed' ? call.arguments : '',
      status,
    };
  }

  private event(type: string, fields: Record<string, unknown>): StreamEvent {
    return { type, sequence_number: this.sequence++, ...fields };
  }
}
