import type { ChatCompletionChunk, FinishReason } from '../../../contract';
import { compileBodySchema, type BodyValidator } from '../../pipeline/compiled-schema';
import { chunkWith, type ChunkHeader } from '../chat-stream';
import { toChatUsage } from '../token-usage';
import type { TokenUsage } from '../types';
import { badResponse, parseJson } from '../upstream-errors';
import { bedrockStreamError } from './bedrock-error';
import {
  ContentBlockDeltaEventSchema,
  ContentBlockStartEventSchema,
  ContentBlockStopEventSchema,
  MessageStopEventSchema,
  StreamMetadataEventSchema,
} from './bedrock-schemas';
import type { EventStreamMessage } from './event-stream';
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
 */
export interface StreamContext extends ChunkHeader {
  provider: string;
  apiKey: string;
  /** Given the full usage before the usage chunk is yielded (ChatStream.usage: cache writes). */
  onUsage: (usage: TokenUsage) => void;
}

interface ToolBlockState {
  toolIndex: number;
  sentArguments: boolean;
}

export async function* translateConverseStream(
  batches: AsyncIterable<EventStreamMessage[]>,
  context: StreamContext,
): AsyncGenerator<ChatCompletionChunk[]> {
  const delta = (value: ChatCompletionChunk['choices'][number]['delta'], finishReason: FinishReason | null = null) =>
    chunkWith(context, [{ index: 0, delta: value, finish_reason: finishReason }]);
  const toolBlocks = new Map<number, ToolBlockState>();
  let started = false;
  let stopped = false;
  let finished = false;
  const start = (out: ChatCompletionChunk[]): void => {
    if (started) return;
    started = true;
    out.push(delta({ role: 'assistant', content: '' }));
  };

  for await (const messages of batches) {
    const out: ChatCompletionChunk[] = [];
    for (const message of messages) {
      // After the metadata the body is still read to its end, so the connection can be reused.
      if (finished) continue;
      if (message.messageType !== 'event') {
        // The chunks before the exception reach the client first.
        if (out.length > 0) yield out;
        throw bedrockStreamError(context.provider, message.type, message.payload, context.apiKey);
      }
      switch (message.type) {
        case 'messageStart':
          start(out);
          break;
        case 'contentBlockStart': {
          start(out);
          const event = read(message, checks.contentBlockStart, context.provider);
          const tool = event.start.toolUse;
          if (tool) {
            const state = { toolIndex: toolBlocks.size, sentArguments: false };
            toolBlocks.set(event.contentBlockIndex, state);
            out.push(
              delta({
                tool_calls: [
                  { index: state.toolIndex, id: tool.toolUseId, type: 'function', function: { name: tool.name, arguments: '' } },
                ],
              }),
            );
          }
          break;
        }
        case 'contentBlockDelta': {
          start(out);
          const event = read(message, checks.contentBlockDelta, context.provider);
          const { text, toolUse, reasoningContent } = event.delta;
          if (text) out.push(delta({ content: text }));
          if (reasoningContent?.text) out.push(delta({ reasoning_content: reasoningContent.text }));
          const state = toolBlocks.get(event.contentBlockIndex);
          if (toolUse && state && toolUse.input.length > 0) {
            state.sentArguments = true;
            out.push(delta({ tool_calls: [{ index: state.toolIndex, function: { arguments: toolUse.input } }] }));
          }
          break;
        }
        case 'contentBlockStop': {
          const state = toolBlocks.get(read(message, checks.contentBlockStop, context.provider).contentBlockIndex);
          // A tool without parameters streams no input at all; "{}" is what the non-streamed reply says.
          if (state && !state.sentArguments) {
            state.sentArguments = true;
            out.push(delta({ tool_calls: [{ index: state.toolIndex, function: { arguments: '{}' } }] }));
          }
          break;
        }
        case 'messageStop':
          start(out);
          stopped = true;
          out.push(delta({}, mapBedrockStopReason(read(message, checks.messageStop, context.provider).stopReason)));
          break;
        case 'metadata': {
          if (!stopped) throw badResponse(context.provider, 'stream metadata before the end of the message');
          finished = true;
          const usage = read(message, checks.metadata, context.provider).usage;
          if (usage) {
            const tokens = mapConverseUsage(usage);
            context.onUsage(tokens);
            out.push(chunkWith(context, [], toChatUsage(tokens)));
          }
          break;
        }
      }
    }
    if (out.length > 0) yield out;
  }
  if (!stopped) throw badResponse(context.provider, 'a stream that ended before the reply was complete');
}

function read<T>(message: EventStreamMessage, check: BodyValidator<T>, provider: string): T {
  const json = parseJson(message.payload);
  const parsed = json.ok ? check(json.value) : null;
  if (!parsed?.success) throw badResponse(provider, `a malformed "${message.type}" stream event`);
  return parsed.data;
}
