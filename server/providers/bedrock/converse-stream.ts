import type { ChatCompletionChunk, FinishReason } from '../../../contract';
import { compileBodySchema, type BodyValidator } from '../../pipeline/compiled-schema';
import { chunkWith, type ChunkHeader } from '../chat-stream';
import { toChatUsage } from '../token-usage';
import type { HttpResponse, TokenUsage } from '../types';
import { badResponse, parseJson } from '../upstream-errors';
import { bedrockStreamError } from './bedrock-error';
import {
  ContentBlockDeltaEventSchema,
  ContentBlockStartEventSchema,
  ContentBlockStopEventSchema,
  MessageStopEventSchema,
  StreamMetadataEventSchema,
} from './bedrock-schemas';
import { EventStreamDecoder, type EventStreamMessage } from './event-stream';
import { plainTextDelta } from './converse-text-delta';
import { mapBedrockStopReason } from './map-bedrock-stop-reason';
import { mapConverseUsage } from './map-converse-response';

/**
 * The events' checks, compiled once (pipeline/compiled-schema.ts, as the OpenAI stream's are):
 * a stream has an event per delta, and zod per event costs more than the rest of its handling.
 */
const checks = {
  contentBlockStart: compileBodySchema(ContentBlockStartEventSchema, { unknownKeys: 'kept' }),
  contentBlockDelta: compileBodySchema(ContentBlockDeltaEventSchema, { unknownKeys: 'kept' }),
  contentBlockStop: compileBodySchema(ContentBlockStopEventSchema, { unknownKeys: 'kept' }),
  messageStop: compileBodySchema(MessageStopEventSchema, { unknownKeys: 'kept' }),
  metadata: compileBodySchema(StreamMetadataEventSchema, { unknownKeys: 'kept' }),
};

export interface StreamContext extends ChunkHeader {
  provider: string;
  apiKey: string;
  /** Given the full usage before the usage chunk is yielded (ChatStream.usage: cache writes). */
  onUsage: (usage: TokenUsage) => void;
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];

interface ToolBlockState {
  toolIndex: number;
  sentArguments: boolean;
}

/**
 * ConverseStream events -> OpenAI chat.completion.chunk objects, grouped as they were read.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 *
 * | Bedrock event (`:event-type`)                | chunk delta                                            |
 * |----------------------------------------------|--------------------------------------------------------|
 * | messageStart                                 | {role: assistant, content: ''}                         |
 * | contentBlockDelta text                       | {content}                                              |
 * | contentBlockDelta reasoningContent.text      | {reasoning_content}                                    |
 * | contentBlockStart toolUse                    | tool_calls[{index, id, type, function{name, ''}}]      |
 * | contentBlockDelta toolUse.input              | tool_calls[{index, function{arguments}}]               |
 * | contentBlockStop of a tool without input     | tool_calls[{index, function{arguments: '{}'}}]         |
 * | messageStop                                  | {} with finish_reason                                  |
 * | metadata                                     | {choices: [], usage}                                   |
 * | unknown event types                          | nothing                                                |
 * | an `exception` message                       | throws an UpstreamError                                |
 *
 * `index` of a tool call counts tool calls only, whereas `contentBlockIndex` counts every block.
 * The body's framing is decoded in the same loop (event-stream.ts), the chunks of one read
 * yielded together (chat-stream.ts). Returning early closes the iterator chain down to the
 * socket, which frees the upstream.
 */
export async function* converseChunkBatches(
  response: Pick<HttpResponse, 'body' | 'finish'>,
  context: StreamContext,
): AsyncGenerator<ChatCompletionChunk[]> {
  const decoder = new EventStreamDecoder(context.provider);
  const stream = new ConverseStreamMapper(context);
  for await (const bytes of response.body) {
    const out: ChatCompletionChunk[] = [];
    for (const message of decoder.push(bytes)) {
      if (message.messageType !== 'event') {
        // The chunks before the exception reach the client first.
        if (out.length > 0) yield out;
        throw bedrockStreamError(context.provider, message.type, message.payload, context.apiKey);
      }
      stream.map(message, out);
      if (stream.finished) break;
    }
    if (stream.finished) {
      // Nothing after the metadata is read: the body ends in the background, its connection kept.
      response.finish();
      if (out.length > 0) yield out;
      return;
    }
    if (out.length > 0) yield out;
  }
  decoder.end();
  if (!stream.stopped) throw badResponse(context.provider, 'a stream that ended before the reply was complete');
}

/** One stream's state: maps its events one at a time (synchronously), pushing the chunks they become onto `out`. */
class ConverseStreamMapper {
  private readonly toolBlocks = new Map<number, ToolBlockState>();
  private started = false;
  /** `messageStop` was read. */
  stopped = false;
  /** The metadata (usage) was read: the reply is complete. */
  finished = false;

  constructor(private readonly context: StreamContext) {}

  map(message: EventStreamMessage, out: ChatCompletionChunk[]): void {
    const { provider } = this.context;
    switch (message.type) {
      case 'messageStart':
        this.start(out);
        break;
      case 'contentBlockStart': {
        this.start(out);
        const event = read(message, checks.contentBlockStart, provider);
        const tool = event.start.toolUse;
        if (tool) {
          const state = { toolIndex: this.toolBlocks.size, sentArguments: false };
          this.toolBlocks.set(event.contentBlockIndex, state);
          out.push(
            this.delta({
              tool_calls: [{ index: state.toolIndex, id: tool.toolUseId, type: 'function', function: { name: tool.name, arguments: '' } }],
            }),
          );
        }
        break;
      }
      case 'contentBlockDelta': {
        this.start(out);
        const plain = plainTextDelta(message.payload);
        if (plain !== null) {
          if (plain !== '') out.push(this.delta({ content: plain }));
          break;
        }
        const event = read(message, checks.contentBlockDelta, provider);
        const { text, toolUse, reasoningContent } = event.delta;
        if (text) out.push(this.delta({ content: text }));
        if (reasoningContent?.text) out.push(this.delta({ reasoning_content: reasoningContent.text }));
        const state = this.toolBlocks.get(event.contentBlockIndex);
        if (toolUse && state && toolUse.input.length > 0) {
          state.sentArguments = true;
          out.push(this.delta({ tool_calls: [{ index: state.toolIndex, function: { arguments: toolUse.input } }] }));
        }
        break;
      }
      case 'contentBlockStop': {
        const state = this.toolBlocks.get(read(message, checks.contentBlockStop, provider).contentBlockIndex);
        // A tool without parameters streams no input at all; "{}" is what the non-streamed reply says.
        if (state && !state.sentArguments) {
          state.sentArguments = true;
          out.push(this.delta({ tool_calls: [{ index: state.toolIndex, function: { arguments: '{}' } }] }));
        }
        break;
      }
      case 'messageStop':
        this.start(out);
        this.stopped = true;
        out.push(this.delta({}, mapBedrockStopReason(read(message, checks.messageStop, provider).stopReason)));
        break;
      case 'metadata': {
        if (!this.stopped) throw badResponse(provider, 'stream metadata before the end of the message');
        this.finished = true;
        const usage = read(message, checks.metadata, provider).usage;
        if (usage) {
          const tokens = mapConverseUsage(usage);
          this.context.onUsage(tokens);
          out.push(chunkWith(this.context, [], toChatUsage(tokens)));
        }
        break;
      }
    }
  }

  private start(out: ChatCompletionChunk[]): void {
    if (this.started) return;
    this.started = true;
    out.push(this.delta({ role: 'assistant', content: '' }));
  }

  private delta(value: Delta, finishReason: FinishReason | null = null): ChatCompletionChunk {
    return chunkWith(this.context, [{ index: 0, delta: value, finish_reason: finishReason }]);
  }
}

function read<T>(message: EventStreamMessage, check: BodyValidator<T>, provider: string): T {
  const json = parseJson(message.payload);
  const parsed = json.ok ? check(json.value) : null;
  if (!parsed?.success) throw badResponse(provider, `a malformed "${message.type}" stream event`);
  return parsed.data;
}
