import type { ServerResponse } from 'node:http';
import { startEventStream, startMockUpstream, writePiecewise } from './mock-upstream';
import type { CommonReply, MockUpstream, RecordedRequest } from './mock-upstream';

/**
 * A local Anthropic Messages API (https://platform.claude.com/docs/en/api/messages) for adapter
 * and end-to-end tests through the real pooled HTTP client (the common machinery:
 * mock-upstream.ts). The builders below produce the exact event shapes of
 * https://platform.claude.com/docs/en/build-with-claude/streaming and the error bodies of
 * https://platform.claude.com/docs/en/api/errors.
 */

/** One SSE event: an object is sent as `event: <its type>` + `data: <JSON>`; a string is sent verbatim. */
export type MockSseEvent = { type: string; [key: string]: unknown } | string;

export type MockReply =
  | CommonReply
  /**
   * A `stream: true` reply. `slices` writes the bytes in pieces of these sizes (cycled; `[1]`
   * = byte by byte); `dropAfter` destroys the socket after that many events; `hold` keeps the
   * stream open after the events (a model still generating).
   */
  | { type: 'sse'; events: MockSseEvent[]; status?: number; slices?: number[]; dropAfter?: number; hold?: boolean; contentType?: string };

export type AnthropicSseReply = Exclude<MockReply, CommonReply>;

/** `baseUrl` is the host root, as configured for the provider; with an empty queue it answers 500 api_error. */
export type MockAnthropicUpstream = MockUpstream<MockReply>;

export function startMockAnthropicUpstream(): Promise<MockAnthropicUpstream> {
  return startMockUpstream<MockReply>({
    jsonHeaders: { 'request-id': 'req_mock' },
    defaultReply: { type: 'json', status: 500, body: errorBody('api_error', 'The mock has no scripted reply.') },
    sendOther: sendAnthropicSse,
  });
}

/** A `stream: true` reply, written as Anthropic writes it (also Claude on Vertex AI: mock-vertex-upstream.ts). */
export async function sendAnthropicSse(reply: AnthropicSseReply, response: ServerResponse, recorded: RecordedRequest): Promise<void> {
  startEventStream(response, reply.status, reply.contentType ?? 'text/event-stream; charset=utf-8');
  const events = reply.dropAfter === undefined ? reply.events : reply.events.slice(0, reply.dropAfter);
  recorded.eventsWritten = events.length;
  await writePiecewise(response, events.map(encodeSseEvent).join(''), {
    slices: reply.slices,
    drop: reply.dropAfter !== undefined,
    hold: reply.hold,
  });
}

export function encodeSseEvent(event: MockSseEvent): string {
  if (typeof event === 'string') return event;
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

// ---- Wire-format builders ---------------------------------------------------------------

export const MOCK_MODEL = 'claude-3-5-haiku-20241022';

export interface MockUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  /** The cache writes by lifetime (https://platform.claude.com/docs/en/build-with-claude/prompt-caching). */
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** `{"type":"error","error":{"type":…,"message":…}}`, also the data of an `error` event. */
export function errorBody(type: string, message: string): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type, message } };
}

export type MockContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: string; [key: string]: unknown };

/** A non-streamed Message. */
export function messageBody(
  content: MockContentBlock[],
  stopReason: string | null,
  usage: MockUsage = { input_tokens: 10, output_tokens: 5 },
): Record<string, unknown> {
  return {
    id: 'msg_01MockMockMockMockMockMock',
    type: 'message',
    role: 'assistant',
    model: MOCK_MODEL,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard', ...usage },
  };
}

export const events = {
  messageStart: (inputTokens: number, extra: Partial<MockUsage> = {}): MockSseEvent => ({
    type: 'message_start',
    message: {
      id: 'msg_01MockMockMockMockMockMock',
      type: 'message',
      role: 'assistant',
      model: MOCK_MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, ...extra },
    },
  }),
  textStart: (index: number): MockSseEvent => ({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
  textDelta: (index: number, text: string): MockSseEvent => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
  toolStart: (index: number, id: string, name: string): MockSseEvent => ({
    type: 'content_block_start',
    index,
    content_block: { type: 'tool_use', id, name, input: {} },
  }),
  jsonDelta: (index: number, partialJson: string): MockSseEvent => ({
    type: 'content_block_delta',
    index,
    delta: { type: 'input_json_delta', partial_json: partialJson },
  }),
  blockStop: (index: number): MockSseEvent => ({ type: 'content_block_stop', index }),
  messageDelta: (stopReason: string, outputTokens: number): MockSseEvent => ({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  }),
  messageStop: (): MockSseEvent => ({ type: 'message_stop' }),
  ping: (): MockSseEvent => ({ type: 'ping' }),
  error: (type: string, message: string): MockSseEvent => errorBody(type, message),
};

/** A complete streamed text reply, as the streaming docs' "basic streaming request" example. */
export function textStream(
  texts: string[],
  stopReason = 'end_turn',
  usage: MockUsage = { input_tokens: 25, output_tokens: 15 },
): MockSseEvent[] {
  return [
    events.messageStart(usage.input_tokens),
    events.textStart(0),
    events.ping(),
    ...texts.map((text) => events.textDelta(0, text)),
    events.blockStop(0),
    events.messageDelta(stopReason, usage.output_tokens),
    events.messageStop(),
  ];
}
