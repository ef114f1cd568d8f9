import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createAnthropicProvider } from '../../server/providers/anthropic';
import { createHttpClient } from '../../server/providers/http-client';
import type { CallOptions, ModelTarget, ProviderAdapter } from '../../server/providers/types';

/**
 * A local Anthropic Messages API (https://platform.claude.com/docs/en/api/messages) on a real
 * HTTP server, for adapter tests that go through the real pooled HTTP client. Tests queue
 * replies; every request is recorded. The builders below produce the exact event shapes of
 * https://platform.claude.com/docs/en/build-with-claude/streaming and the error bodies of
 * https://platform.claude.com/docs/en/api/errors.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body, or undefined when it was not JSON. */
  body: unknown;
  rawBody: string;
  /** Resolves when the client went away before the reply was complete (abort, early stop). */
  aborted: Promise<void>;
  wasAborted(): boolean;
}

/** One SSE event: an object is sent as `event: <its type>` + `data: <JSON>`; a string is sent verbatim. */
export type MockSseEvent = { type: string; [key: string]: unknown } | string;

export type MockReply =
  | { type: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  /**
   * A `stream: true` reply. `slices` writes the bytes in pieces of these sizes (cycled; `[1]`
   * = byte by byte); `dropAfter` destroys the socket after that many events; `hold` keeps the
   * stream open after the events (a model still generating).
   */
  | { type: 'sse'; events: MockSseEvent[]; status?: number; slices?: number[]; dropAfter?: number; hold?: boolean; contentType?: string }
  /** Any bytes with any content type (garbage, HTML error pages). */
  | { type: 'raw'; status?: number; body: string; contentType?: string }
  /** Destroy the connection without answering. */
  | { type: 'drop' }
  /** Never answer, not even the headers (for abort tests). */
  | { type: 'hang' };

export interface MockAnthropicUpstream {
  /** Host root, as configured for the provider (`base_url`). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues replies, used in order; with an empty queue the server answers 500 api_error. */
  reply(...replies: MockReply[]): void;
  close(): Promise<void>;
}

export async function startMockAnthropicUpstream(): Promise<MockAnthropicUpstream> {
  const queue: MockReply[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((request, response) => {
    void handle(request, response);
  });
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readBody(request);
    let abortedFlag = false;
    const aborted = new Promise<void>((resolve) => {
      response.on('close', () => {
        if (!response.writableFinished) {
          abortedFlag = true;
          resolve();
        }
      });
    });
    requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body: parseBody(rawBody),
      rawBody,
      aborted,
      wasAborted: () => abortedFlag,
    });
    const reply = queue.shift() ?? { type: 'json', status: 500, body: errorBody('api_error', 'The mock has no scripted reply.') };
    await send(reply, response);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => {
      queue.push(...replies);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function send(reply: MockReply, response: ServerResponse): Promise<void> {
  switch (reply.type) {
    case 'json':
      response.writeHead(reply.status ?? 200, {
        'content-type': 'application/json',
        'request-id': 'req_mock',
        ...reply.headers,
      });
      response.end(JSON.stringify(reply.body));
      return;
    case 'raw':
      response.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain' });
      response.end(reply.body);
      return;
    case 'drop':
      response.socket?.destroy();
      return;
    case 'hang':
      return;
    case 'sse':
      await sendSse(reply, response);
      return;
  }
}

async function sendSse(reply: Extract<MockReply, { type: 'sse' }>, response: ServerResponse): Promise<void> {
  response.writeHead(reply.status ?? 200, {
    'content-type': reply.contentType ?? 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
  response.flushHeaders();
  const events = reply.dropAfter === undefined ? reply.events : reply.events.slice(0, reply.dropAfter);
  const bytes = Buffer.from(events.map(encodeSseEvent).join(''), 'utf8');
  const slices = reply.slices ?? [bytes.length || 1];
  let offset = 0;
  for (let index = 0; offset < bytes.length; index++) {
    const size = Math.max(1, slices[index % slices.length] ?? 1);
    if (response.destroyed) return;
    response.write(bytes.subarray(offset, offset + size));
    offset += size;
    // Separate writes on a no-delay socket, so the client really receives the pieces one by one.
    if (reply.slices) await new Promise((resolve) => setImmediate(resolve));
  }
  if (reply.dropAfter !== undefined) {
    // Let the written bytes leave before the connection goes.
    await new Promise((resolve) => setTimeout(resolve, 20));
    response.socket?.destroy();
    return;
  }
  if (!reply.hold) response.end();
}

export function encodeSseEvent(event: MockSseEvent): string {
  if (typeof event === 'string') return event;
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody) as unknown;
  } catch {
    return undefined;
  }
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
export function messageBody(content: MockContentBlock[], stopReason: string | null, usage: MockUsage = { input_tokens: 10, output_tokens: 5 }): Record<string, unknown> {
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
export function textStream(texts: string[], stopReason = 'end_turn', usage: MockUsage = { input_tokens: 25, output_tokens: 15 }): MockSseEvent[] {
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

// ---- The adapter under test, wired to the mock through the real pooled HTTP client ------

/** Looks like a real key, long enough for redact() to catch fragments of it. */
export const TEST_API_KEY = 'sk-ant-api03-Qm7TESTKEYv2Lx9Rw4Tz8Yb1Nc3Pd5Fh6Gj0Kk';

export const TEST_TARGET: ModelTarget = { id: 'claude-haiku', upstreamModel: MOCK_MODEL, defaultMaxTokens: 1024 };

/** Fixed clock and ids: replies are reproducible. */
export const TEST_NOW_MS = 1_767_225_600_123;

export function createAnthropicTestProvider(upstream: MockAnthropicUpstream): { provider: ProviderAdapter; close(): Promise<void> } {
  const http = createHttpClient({ connectTimeoutMs: 2_000, firstByteTimeoutMs: 5_000, idleTimeoutMs: 5_000, keepAliveMs: 20_000 });
  let counter = 0;
  const provider = createAnthropicProvider({
    name: 'anthropic',
    baseUrl: upstream.baseUrl,
    apiKey: TEST_API_KEY,
    http,
    now: () => TEST_NOW_MS,
    generateId: () => `test${++counter}`,
  });
  return { provider, close: () => http.close() };
}

export function callOptions(signal: AbortSignal = new AbortController().signal): CallOptions {
  return { signal, requestId: 'req-test' };
}
