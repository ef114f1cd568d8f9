import type { ChatCompletionChunk, FinishReason, MessagesStreamEvent } from '../../contract';
import type { ChatChunkStream } from '../completions/chat-call';
import { ChunkTranslator } from '../completions/chunk-relay';
import { toMessagesErrorBody } from '../errors/anthropic-error-body';
import type { GatewayError } from '../errors/gateway-error';
import type { TokenUsage } from '../providers/types';
import { encodeSseEvent } from '../streaming/encode-sse';
import { toMessagesUsage, toStopReason } from './chat-to-message';

/**
 * The gateway's chat chunks -> Anthropic stream events, a state machine fed one chunk at a time
 * (https://platform.claude.com/docs/en/build-with-claude/streaming): the reverse of
 * server/providers/anthropic/anthropic-stream.ts.
 *
 * | chat chunk                                  | events                                                    |
 * |---------------------------------------------|-----------------------------------------------------------|
 * | (start)                                     | message_start (usage: the input estimate), ping           |
 * | delta.reasoning_content                     | content_block_start thinking (once), content_block_delta thinking_delta |
 * | delta.content                               | content_block_start text (once), content_block_delta text_delta |
 * | delta.tool_calls[i] with id/name            | content_block_stop of the open block, content_block_start tool_use |
 * | delta.tool_calls[i].function.arguments      | content_block_delta input_json_delta on tool i's block    |
 * | finish_reason                               | (remembered)                                              |
 * | choices: [] with usage                      | nothing (the caller's metered usage goes in message_delta) |
 * | (end)                                       | content_block_stop, message_delta {stop_reason, usage}, message_stop |
 *
 * Blocks are numbered in the order they open; a text block after a tool call opens a new one.
 * A thinking block has an empty `signature` and no signature_delta: a translated upstream gives none.
 */
export interface MessageStreamContext {
  id: string;
  /** The catalogue model named in message_start. */
  model: string;
  /** Input tokens announced in message_start (the final count comes in message_delta). */
  inputTokens: number;
}

/** The Messages events of a translated stream; relayed by the chunk relay (completions/chunk-relay.ts). */
export class MessageStreamTranslator extends ChunkTranslator {
  private nextIndex = 0;
  /** The open block: its index and, for a tool call, the chat tool index. */
  private open: { index: number; kind: 'text' | 'thinking' } | { index: number; kind: 'tool'; toolIndex: number } | null = null;
  private readonly toolBlocks = new Map<number, number>();
  private finishReason: FinishReason | null = null;

  constructor(private readonly context: MessageStreamContext) {
    super();
  }

  /** message_start and a ping, as Anthropic's streams begin. */
  start(): string {
    return (
      event({
        type: 'message_start',
        message: {
          id: this.context.id,
          type: 'message',
          role: 'assistant',
          model: this.context.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...toMessagesUsage({ promptTokens: this.context.inputTokens, completionTokens: 0 }), output_tokens: 0 },
        },
      }) + event({ type: 'ping' })
    );
  }

  /** The events of one chunk ('' when it only carries state: a finish reason, the usage chunk). */
  push(chunk: ChatCompletionChunk): string {
    let events = '';
    const choice = chunk.choices[0];
    if (!choice) return events;
    const { delta } = choice;
    if (delta.reasoning_content) {
      if (this.open?.kind !== 'thinking') events += this.openBlock({ type: 'thinking', thinking: '', signature: '' }, { kind: 'thinking' });
      events += event({
        type: 'content_block_delta',
        index: this.open?.index ?? 0,
        delta: { type: 'thinking_delta', thinking: delta.reasoning_content },
      });
    }
    if (delta.content) {
      if (this.open?.kind !== 'text') events += this.openBlock({ type: 'text', text: '' }, { kind: 'text' });
      events += event({ type: 'content_block_delta', index: this.open?.index ?? 0, delta: { type: 'text_delta', text: delta.content } });
    }
    for (const call of delta.tool_calls ?? []) {
      let blockIndex = this.toolBlocks.get(call.index);
      if (blockIndex === undefined) {
        events += this.openBlock(
          { type: 'tool_use', id: call.id ?? `toolu_${this.context.id}_${call.index}`, name: call.function?.name ?? '', input: {} },
          { kind: 'tool', toolIndex: call.index },
        );
        blockIndex = this.open?.index ?? 0;
        this.toolBlocks.set(call.index, blockIndex);
      }
      const partial = call.function?.arguments;
      if (partial)
        events += event({ type: 'content_block_delta', index: blockIndex, delta: { type: 'input_json_delta', partial_json: partial } });
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  /** The closing events, with the usage billed (the reported one, or the gateway's count). */
  finish(usage: TokenUsage): string {
    let events = this.closeBlock();
    const messageUsage = toMessagesUsage(usage);
    events += event({
      type: 'message_delta',
      delta: { stop_reason: toStopReason(this.finishReason), stop_sequence: null },
      usage: messageUsage,
    });
    return events + event({ type: 'message_stop' });
  }

  failure(error: GatewayError): string {
    return event(toMessagesErrorBody(error));
  }

  /** The usage in message_delta is the one billed. */
  closing(chunks: ChatChunkStream): string {
    const { reported: _, ...usage } = chunks.usage();
    return this.finish(usage);
  }

  private openBlock(
    contentBlock: Extract<MessagesStreamEvent, { type: 'content_block_start' }>['content_block'],
    kind: { kind: 'text' | 'thinking' } | { kind: 'tool'; toolIndex: number },
  ): string {
    const events = this.closeBlock();
    const index = this.nextIndex++;
    this.open = { index, ...kind };
    return events + event({ type: 'content_block_start', index, content_block: contentBlock });
  }

  private closeBlock(): string {
    if (!this.open) return '';
    const index = this.open.index;
    this.open = null;
    return event({ type: 'content_block_stop', index });
  }
}

export function event(payload: MessagesStreamEvent): string {
  return encodeSseEvent(payload.type, payload);
}
