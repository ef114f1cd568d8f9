import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The base of every mock provider (mock-openai-upstream.ts, mock-anthropic-upstream.ts,
 * mock-gemini-upstream.ts, and the clouds' mocks): a real local HTTP server that records each request and answers
 * with replies the test queued, in order. What is common to every provider lives here (the
 * server, the recording, JSON/text/drop/hang replies, writing a stream in pieces with
 * back-pressure); each provider module adds its own wire format (event framing, error bodies,
 * builders) and nothing else.
 */

export interface RecordedRequest {
  method: string;
  /** Path including the query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
  rawBody: string;
  /** Resolves when the client went away before the reply was complete (abort, early stop). */
  aborted: Promise<void>;
  wasAborted(): boolean;
  /** The client's port: the same for two requests sent over one kept-alive connection. */
  remotePort: number | undefined;
  /** Events of a streamed reply written so far. */
  eventsWritten: number;
}

/** Replies every provider's mock understands. */
export type CommonReply =
  | { type: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  /** Any bytes with any content type (garbage, HTML error pages). */
  | { type: 'raw'; status?: number; body: string; contentType?: string; headers?: Record<string, string> }
  /** Destroy the connection without answering. */
  | { type: 'drop' }
  /** Never answer, not even the headers (for abort and timeout tests). */
  | { type: 'hang' };

export interface MockUpstream<Reply> {
  /** Where the provider is configured to send its requests (`base_url`). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues replies, used in order, one per request. */
  reply(...replies: Reply[]): void;
  /** The reply when the queue is empty (each provider's default is a 500 in its own error shape). */
  setDefault(reply: Reply): void;
  /**
   * Answers from the request itself, when the queue is empty (a provider whose reply depends on
   * what it saw before, such as its prompt cache); null: the default. Absent: the default.
   */
  respondWith(responder: ((recorded: RecordedRequest) => Reply | null) | null): void;
  close(): Promise<void>;
}

/** A reply the service makes by itself; `recorded`: whether the request shows in `requests` (a refused model call does, a token request does not). */
export interface ServiceAnswer {
  reply: CommonReply;
  recorded: boolean;
}

/** A refusal of a request the service still saw (recorded in `requests`); null: no refusal. */
export function refusal(reply: CommonReply | null): ServiceAnswer | null {
  return reply && { reply, recorded: true };
}

export interface MockUpstreamOptions<Reply> {
  /** Appended to the server's address in `baseUrl` (e.g. `/v1` for OpenAI). */
  basePath?: string;
  /** Content type of `json` replies. */
  jsonContentType?: string;
  /** Headers every `json` reply carries (e.g. Anthropic's `request-id`). */
  jsonHeaders?: Record<string, string>;
  defaultReply: Reply;
  /** Sends the provider-specific replies (streams); the common ones are sent here. */
  sendOther: (reply: Exclude<Reply, CommonReply>, response: ServerResponse, recorded: RecordedRequest) => Promise<void>;
  /**
   * What the service answers by itself, as the provider does, before any scripted reply: a
   * token endpoint, the refusal of a bad credential, signature, token, path or API version. Such
   * an answer takes no queued reply (it stays queued). Absent or null: the scripted reply.
   */
  answerFirst?: (recorded: RecordedRequest) => Promise<ServiceAnswer | null> | ServiceAnswer | null;
}

export async function startMockUpstream<Reply extends { type: string }>(options: MockUpstreamOptions<Reply>): Promise<MockUpstream<Reply>> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let fallback = options.defaultReply;
  let responder: ((recorded: RecordedRequest) => Reply | null) | null = null;

  const server = createServer((request, response) => {
    // A failure here is a bug of the test: Vitest reports the unhandled rejection and fails the run.
    void handle(request, response);
  });
  server.on('connection', (socket) => {
    // Separate writes reach the client separately (streams written in pieces).
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let abortedFlag = false;
    const aborted = new Promise<void>((resolve) => {
      response.on('close', () => {
        if (!response.writableFinished) {
          abortedFlag = true;
          resolve();
        }
      });
    });
    const rawBody = await readBody(request);
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body: parseJson(rawBody),
      rawBody,
      aborted,
      wasAborted: () => abortedFlag,
      remotePort: request.socket.remotePort,
      eventsWritten: 0,
    };
    const answer = options.answerFirst ? await options.answerFirst(recorded) : null;
    if (answer?.recorded !== false) requests.push(recorded);
    if (answer) {
      sendCommon(answer.reply, response, options);
      return;
    }
    const reply = queue.shift() ?? responder?.(recorded) ?? fallback;
    if (isCommon(reply)) sendCommon(reply, response, options);
    else await options.sendOther(reply as Exclude<Reply, CommonReply>, response, recorded);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${options.basePath ?? ''}`,
    requests,
    reply: (...replies) => {
      queue.push(...replies);
    },
    setDefault: (reply) => {
      fallback = reply;
    },
    respondWith: (answer) => {
      responder = answer;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function isCommon(reply: { type: string }): reply is CommonReply {
  return reply.type === 'json' || reply.type === 'raw' || reply.type === 'drop' || reply.type === 'hang';
}

function sendCommon(
  reply: CommonReply,
  response: ServerResponse,
  options: Pick<MockUpstreamOptions<unknown>, 'jsonContentType' | 'jsonHeaders'>,
): void {
  switch (reply.type) {
    case 'json':
      response.writeHead(reply.status ?? 200, {
        'content-type': options.jsonContentType ?? 'application/json',
        ...options.jsonHeaders,
        ...reply.headers,
      });
      response.end(JSON.stringify(reply.body));
      return;
    case 'raw':
      response.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain', ...reply.headers });
      response.end(reply.body);
      return;
    case 'drop':
      response.socket?.destroy();
      return;
    case 'hang':
      return;
  }
}

/** The head of a streamed reply, sent at once. */
export function startEventStream(
  response: ServerResponse,
  status = 200,
  contentType = 'text/event-stream',
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-cache', ...headers });
  response.flushHeaders();
}

export interface PiecewiseOptions {
  /** Sizes of the pieces, cycled (`[1]` = byte by byte); one piece when absent. */
  slices?: number[] | undefined;
  /** Destroy the socket after the bytes (a mid-stream drop). */
  drop?: boolean | undefined;
  /** Keep the stream open after the bytes (a model still generating). */
  hold?: boolean | undefined;
}

/** Writes a stream's bytes (text as UTF-8) in pieces, each reaching the client on its own, then ends, drops or holds it. */
export async function writePiecewise(response: ServerResponse, text: string | Uint8Array, options: PiecewiseOptions = {}): Promise<void> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const slices = options.slices ?? [bytes.length || 1];
  let offset = 0;
  for (let index = 0; offset < bytes.length; index++) {
    const size = Math.max(1, slices[index % slices.length] ?? 1);
    if (response.destroyed) return;
    response.write(bytes.subarray(offset, offset + size));
    offset += size;
    if (options.slices) await new Promise((resolve) => setImmediate(resolve));
  }
  if (options.drop) {
    // Let the written bytes leave before the connection goes.
    await sleep(20);
    response.socket?.destroy();
    return;
  }
  if (!options.hold) response.end();
}

/** Resolves on 'drain' or 'close', whichever comes first, and leaves no listener behind. */
export function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
