import type { ChatCompletionChunk, FinishReason, OutputItem, ResponseObject, ResponsesUsage } from '../../contract';
import type { ChatChunkStream } from '../completions/chat-call';
import { ChunkTranslator } from '../completions/chunk-relay';
import type { GatewayError } from '../errors/gateway-error';
import { customToolInput, reasoningItem, statusFor, toResponsesUsage } from './chat-to-response';
import { ResponseEventEncoder } from './response-event-encoder';

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
 * upstream's reply ends, since a chat stream may interleave text and tool calls. The methods
 * return the events as SSE text (`event: <type>` + `data: <json>`), the deltas written from a
 * per-item prefix serialized once (response-event-encoder.ts).
 */

interface OpenText {
  kind: 'text';
  outputIndex: number;
  id: string;
  text: string;
  /** The JSON members of its delta events before `"delta":`, made once. */
  deltaMembers: string;
}

interface OpenReasoning {
  kind: 'reasoning';
  outputIndex: number;
  id: string;
  text: string;
  deltaMembers: string;
}

interface OpenCall {
  kind: 'call';
  outputIndex: number;
  id: string;
  callId: string;
  name: string;
  arguments: string;
  custom: boolean;
  deltaMembers: string;
}

/** The Responses events of a translated stream; relayed by the chunk relay (completions/chunk-relay.ts). */
export class ResponseStreamTranslator extends ChunkTranslator {
  private readonly events = new ResponseEventEncoder();
  private readonly items: (OpenText | OpenCall | OpenReasoning)[] = [];
  private text: OpenText | null = null;
  private reasoning: OpenReasoning | null = null;
  /** By the chat tool call's `index`. */
  private readonly calls = new Map<number, OpenCall>();
  private finishReason: FinishReason | null = null;
  private ended = false;
  /** Reasoning text not shown (no `reasoning.summary`), still output the gateway counts. */
  private hiddenReasoning = '';

  /** `response` is the translator's own: finish and fail fill in its final fields. */
  constructor(
    private readonly response: ResponseObject,
    private readonly customTools: ReadonlySet<string>,
    private readonly generateId: () => string,
    /** Whether reasoning text becomes reasoning items (the request set `reasoning.summary`). */
    private readonly showReasoning = false,
  ) {
    super();
  }

  /** The two opening events, both with the response as it is now (no output yet), serialized once. */
  start(): string {
    const snapshot = this.events.members({ response: this.response });
    return this.events.encode('response.created', snapshot) + this.events.encode('response.in_progress', snapshot);
  }

  /** All text and arguments so far (the gateway's own count when the upstream reports no usage). */
  outputText(): string {
    let all = '';
    for (const item of this.items) all += item.kind === 'call' ? item.arguments : item.text;
    return all + this.hiddenReasoning;
  }

  /** The events of one chunk ('' when it only carries state: a finish reason, the usage chunk). */
  push(chunk: ChatCompletionChunk): string {
    let events = '';
    const choice = chunk.choices[0];
    if (!choice) return events;
    const { content, refusal, tool_calls: toolCalls, reasoning_content: reasoning } = choice.delta;
    if (reasoning) events += this.pushReasoning(reasoning);
    const text = content || refusal;
    if (text) {
      this.reasoning = null;
      let open = this.text;
      if (!open) {
        open = this.openText();
        events += this.openTextEvents(open);
      }
      open.text += text;
      events += this.events.delta('response.output_text.delta', open.deltaMembers, text, ',"logprobs":[]');
    }
    for (const delta of toolCalls ?? []) {
      let call = this.calls.get(delta.index);
      if (!call) {
        // After a tool call starts, later text is a new message item.
        this.text = null;
        this.reasoning = null;
        const name = delta.function?.name ?? '';
        const outputIndex = this.items.length;
        const id = `fc_${this.generateId()}`;
        call = {
          kind: 'call',
          outputIndex,
          id,
          callId: delta.id ?? `call_${this.generateId()}`,
          name,
          arguments: '',
          custom: this.customTools.has(name),
          deltaMembers: this.events.members({ item_id: id, output_index: outputIndex }),
        };
        this.calls.set(delta.index, call);
        this.items.push(call);
        events += this.encode('response.output_item.added', { output_index: outputIndex, item: this.callItem(call, 'in_progress') });
      }
      const piece = delta.function?.arguments;
      if (piece) {
        call.arguments += piece;
        // A custom tool's input is the string inside the arguments: sent whole at the end.
        if (!call.custom) events += this.events.delta('response.function_call_arguments.delta', call.deltaMembers, piece, '');
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  /** Closes every item and ends with response.completed (or .incomplete). */
  finish(usage: ResponsesUsage): string {
    let events = '';
    const output: OutputItem[] = [];
    for (const item of this.items) {
      const { id, outputIndex } = item;
      let done: OutputItem;
      if (item.kind === 'reasoning') {
        const part = { type: 'summary_text', text: item.text };
        events += this.encode('response.reasoning_summary_text.done', {
          item_id: id,
          output_index: outputIndex,
          summary_index: 0,
          text: item.text,
        });
        events += this.encode('response.reasoning_summary_part.done', { item_id: id, output_index: outputIndex, summary_index: 0, part });
        done = reasoningItem(id, item.text);
      } else if (item.kind === 'text') {
        const part = { type: 'output_text', text: item.text, annotations: [], logprobs: [] };
        events += this.encode('response.output_text.done', {
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          text: item.text,
          logprobs: [],
        });
        events += this.encode('response.content_part.done', { item_id: id, output_index: outputIndex, content_index: 0, part });
        done = { type: 'message', id, status: 'completed', role: 'assistant', content: [part] };
      } else {
        if (item.custom) {
          const input = customToolInput(item.arguments);
          events += this.encode('response.custom_tool_call_input.delta', { item_id: id, output_index: outputIndex, delta: input });
          events += this.encode('response.custom_tool_call_input.done', { item_id: id, output_index: outputIndex, input });
        } else {
          events += this.encode('response.function_call_arguments.done', {
            item_id: id,
            output_index: outputIndex,
            name: item.name,
            arguments: item.arguments,
          });
        }
        done = this.callItem(item, 'completed');
      }
      events += this.encode('response.output_item.done', { output_index: outputIndex, item: done });
      output.push(done);
    }
    // The response is the translator's own: its final fields are set in place (the keys keep their order).
    const { status, incomplete_details: incompleteDetails } = statusFor(this.finishReason);
    const response = this.response;
    response.status = status;
    response.incomplete_details = incompleteDetails;
    response.output = output;
    response.usage = usage;
    events += this.encode(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    this.ended = true;
    return events;
  }

  failure(error: GatewayError): string {
    return this.fail(error.code ?? 'server_error', error.message);
  }

  /** The provider's usage, or the gateway's count (the one billed) when it reported none. */
  closing(chunks: ChatChunkStream): string {
    return this.finish(toResponsesUsage(chunks.usage()));
  }

  /** A failure after the start: response.failed, with what was produced so far left out. */
  fail(code: string, message: string): string {
    if (this.ended) return '';
    this.ended = true;
    const response = this.response;
    response.status = 'failed';
    response.error = { code, message };
    response.output = [];
    return this.encode('response.failed', { response });
  }

  private pushReasoning(text: string): string {
    if (!this.showReasoning) {
      this.hiddenReasoning += text;
      return '';
    }
    let events = '';
    let open = this.reasoning;
    if (!open) {
      const outputIndex = this.items.length;
      const id = `rs_${this.generateId()}`;
      open = {
        kind: 'reasoning',
        outputIndex,
        id,
        text: '',
        deltaMembers: this.events.members({ item_id: id, output_index: outputIndex, summary_index: 0 }),
      };
      this.items.push(open);
      this.reasoning = open;
      events += this.encode('response.output_item.added', { output_index: outputIndex, item: { type: 'reasoning', id, summary: [] } });
      events += this.encode('response.reasoning_summary_part.added', {
        output_index: outputIndex,
        item_id: id,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
    }
    open.text += text;
    return events + this.events.delta('response.reasoning_summary_text.delta', open.deltaMembers, text, '');
  }

  private openText(): OpenText {
    const outputIndex = this.items.length;
    const id = `msg_${this.generateId()}`;
    const open: OpenText = {
      kind: 'text',
      outputIndex,
      id,
      text: '',
      deltaMembers: this.events.members({ item_id: id, output_index: outputIndex, content_index: 0 }),
    };
    this.items.push(open);
    this.text = open;
    return open;
  }

  private openTextEvents(open: OpenText): string {
    return (
      this.encode('response.output_item.added', {
        output_index: open.outputIndex,
        item: { type: 'message', id: open.id, status: 'in_progress', role: 'assistant', content: [] },
      }) +
      this.encode('response.content_part.added', {
        output_index: open.outputIndex,
        item_id: open.id,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      })
    );
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

  private encode(type: string, fields: Record<string, unknown>): string {
    return this.events.encode(type, this.events.members(fields));
  }
}
