import type { ChatCompletionChunk, FinishReason } from '../../../contract';
import type { SseEvent } from '../../streaming/parse-sse';
import { badResponse, parseJson } from '../upstream-errors';
import { anthropicStreamError } from './anthropic-error';
import {
  AnthropicStreamEventSchema,
  InputJsonDeltaSchema,
  KNOWN_STREAM_EVENT_TYPES,
  TextDeltaSchema,
  ThinkingDeltaSchema,
  classifyContentBlock,
  type AnthropicStreamEvent,
  type AnthropicUsage,
} from './anthropic-schemas';
import { mapAnthropicUsage, type ReplyContext } from './map-anthropic-response';
import { usageChunk } from '../chat-stream';
import type { TokenUsage } from '../types';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason';

/**
 * Anthropic stream events -> OpenAI chat.completion.chunk objects, one event at a time.
 * https://platform.claude.com/docs/en/build-with-claude/streaming
 *
 * | Anthropic event                                  | chunk delta                                            |
 * |--------------------------------------------------|--------------------------------------------------------|
 * | message_start                                    | {role: assistant, content: ''}                         |
 * | content_block_delta text_delta                   | {content} (the JSON-mode prefill goes before the first)|
 * | content_block_delta thinking_delta               | {reasoning_content}                                    |
 * | content_block_start tool_use                     | tool_calls[{index, id, type, function{name, ''}}]      |
 * | content_block_delta input_json_delta             | tool_calls[{index, function{arguments}}]               |
 * | content_block_stop of a tool without input       | tool_calls[{index, function{arguments: '{}'}}]         |
 * | message_delta                                    | (remembers stop_reason and usage)                      |
 * | message_stop                                     | {} with finish_reason, then {choices: [], usage}       |
 * | ping, unknown event or delta types               | nothing (the docs ask clients to ignore new types)     |
 * | error                                            | throws an UpstreamError                                |
 *
 * `index` of a tool call counts tool calls only (0, 1, …), whereas Anthropic's block index
 * also counts text blocks. Usage: the message_delta counts are cumulative and final, so they
 * override message_start's (input counts included, when present).
 */
export interface StreamContext extends ReplyContext {
  apiKey: string;
  /** Given the full usage before the usage chunk is yielded (ChatStream.usage: cache writes by lifetime). */
  onUsage?: (usage: TokenUsage) => void;
}

interface ToolBlockState {
  toolIndex: number;
  sentArguments: boolean;
}

export async function* translateAnthropicStream(
  events: AsyncIterable<SseEvent>,
  context: StreamContext,
): AsyncGenerator<ChatCompletionChunk> {
  const chunk = (
    delta: ChatCompletionChunk['choices'][number]['delta'],
    finishReason: FinishReason | null = null,
  ): ChatCompletionChunk => ({
    id: context.id,
    object: 'chat.completion.chunk',
    created: context.created,
    model: context.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

  const toolBlocks = new Map<number, ToolBlockState>();
  let started = false;
  let pendingPrefill = context.prefill;
  let stopReason: string | null = null;
  let usage: AnthropicUsage = {};
  let finished = false;

  function* start(): Generator<ChatCompletionChunk> {
    if (started) return;
    started = true;
    yield chunk({ role: 'assistant', content: '' });
  }
  function* text(value: string): Generator<ChatCompletionChunk> {
    if (value.length === 0) return;
    const content = (pendingPrefill ?? '') + value;
    pendingPrefill = null;
    yield chunk({ content });
  }

  for await (const sse of events) {
    // After message_stop the body is still read to its end, so the connection can be reused.
    if (finished) continue;
    const event = parseEvent(sse, context.provider);
    if (!event) continue;

    switch (event.type) {
      case 'message_start':
        usage = Object.assign({}, usage, definedUsage(event.message.usage));
        yield* start();
        break;

      case 'content_block_start': {
        yield* start();
        const block = classifyContentBlock(event.content_block);
        if (!block) throw badResponse(context.provider, 'a malformed content block in its stream');
        if (block.kind === 'text') {
          yield* text(block.text);
        } else if (block.kind === 'tool_use') {
          const state = { toolIndex: toolBlocks.size, sentArguments: false };
          toolBlocks.set(event.index, state);
          yield chunk({
            tool_calls: [{ index: state.toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }],
          });
        }
        break;
      }

      case 'content_block_delta': {
        yield* start();
        if (event.delta.type === 'text_delta') {
          const delta = TextDeltaSchema.safeParse(event.delta);
          if (!delta.success) throw badResponse(context.provider, 'a malformed text delta in its stream');
          yield* text(delta.data.text);
        } else if (event.delta.type === 'thinking_delta') {
          const delta = ThinkingDeltaSchema.safeParse(event.delta);
          if (!delta.success) throw badResponse(context.provider, 'a malformed thinking delta in its stream');
          if (delta.data.thinking) yield chunk({ reasoning_content: delta.data.thinking });
        } else if (event.delta.type === 'input_json_delta') {
          const delta = InputJsonDeltaSchema.safeParse(event.delta);
          const state = toolBlocks.get(event.index);
          if (!delta.success) throw badResponse(context.provider, 'a malformed tool input delta in its stream');
          // Input deltas of blocks we do not translate (server tools) have no tool call to join.
          if (state && delta.data.partial_json.length > 0) {
            state.sentArguments = true;
            yield chunk({ tool_calls: [{ index: state.toolIndex, function: { arguments: delta.data.partial_json } }] });
          }
        }
        break;
      }

      case 'content_block_stop': {
        const state = toolBlocks.get(event.index);
        // A tool without parameters streams no input at all; "{}" is what the non-streamed reply says.
        if (state && !state.sentArguments) {
          state.sentArguments = true;
          yield chunk({ tool_calls: [{ index: state.toolIndex, function: { arguments: '{}' } }] });
        }
        break;
      }

      case 'message_delta':
        stopReason = event.delta.stop_reason ?? stopReason;
        usage = Object.assign({}, usage, definedUsage(event.usage));
        break;

      case 'message_stop': {
        finished = true;
        yield* start();
        // A JSON-mode reply without text is still the prefill, as in the non-streamed reply.
        if (pendingPrefill !== null && toolBlocks.size === 0) yield chunk({ content: pendingPrefill });
        pendingPrefill = null;
        yield chunk({}, mapAnthropicStopReason(stopReason));
        const tokens = mapAnthropicUsage(usage);
        if (tokens) {
          context.onUsage?.(tokens);
          yield usageChunk(context, tokens);
        }
        break;
      }

      case 'ping':
        break;

      case 'error':
        throw anthropicStreamError(context.provider, event.error, context.apiKey);
    }
  }

  if (!finished) throw badResponse(context.provider, 'a stream that ended before the reply was complete');
}

/** null for event types this translator does not know (skipped); throws on garbage. */
function parseEvent(sse: SseEvent, provider: string): AnthropicStreamEvent | null {
  const json = parseJson(sse.data);
  if (!json.ok) throw badResponse(provider, 'a stream event that is not JSON');
  const type = typeof json.value === 'object' && json.value !== null ? (json.value as { type?: unknown }).type : undefined;
  if (typeof type !== 'string') throw badResponse(provider, 'a stream event without a type');
  if (!KNOWN_STREAM_EVENT_TYPES.has(type)) return null;
  const parsed = AnthropicStreamEventSchema.safeParse(json.value);
  if (!parsed.success) throw badResponse(provider, `a malformed "${type}" stream event`);
  return parsed.data;
}

/** Only the counts present in this event, so a partial usage object never erases earlier ones. */
function definedUsage(usage: AnthropicUsage | null | undefined): AnthropicUsage {
  const result: AnthropicUsage = {};
  if (!usage) return result;
  for (const key of ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const) {
    const value = usage[key];
    if (value != null) result[key] = value;
  }
  if (usage.cache_creation != null) result.cache_creation = usage.cache_creation;
  return result;
}
