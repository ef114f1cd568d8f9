import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real local HTTP server speaking OpenAI's wire format (Chat Completions, streaming and
 * Embeddings: https://platform.openai.com/docs/api-reference/chat,
 * https://platform.openai.com/docs/api-reference/embeddings; the Responses API's replies and
 * named events come from mock-openai-responses.ts), for adapter tests through the
 * real pooled HTTP client. Each test scripts the replies in order and reads back every
 * request the upstream received.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
  rawBody: string;
  /** Resolves when the client closed the connection before the reply was complete. */
  clientClosed: Promise<void>;
  /** The client's port: the same for two requests sent over one kept-alive connection. */
  remotePort: number | undefined;
  /** Steps of an `sse` reply written so far (the upstream waits for `drain` like a real server). */
  eventsWritten: number;
}

/** One step of a scripted event stream, after an optional pause. */
export type SseStep = { delayMs?: number } & (
  | { data: unknown } // `data: <JSON or the string as is>` + blank line
  | { event: string; data: unknown } // `event: <name>` + `data: <JSON>` + blank line (Responses API)
  | { raw: string } // bytes exactly as given (comments, CRLF, split events, …)
  | { drop: true } // destroy the socket here: a mid-stream drop
);

export type ScriptedReply =
  | { type: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  /** Any text, e.g. garbage or HTML from a proxy. */
  | { type: 'text'; status?: number; body: string; contentType?: string; headers?: Record<string, string> }
  /** `text/event-stream`; `[DONE]` is appended unless `done: false`. */
  | { type: 'sse'; status?: number; events: SseStep[]; done?: boolean; headers?: Record<string, string> }
  /** Close the connection without any answer. */
  | { type: 'drop' }
  /** Never answer (until the client gives up or the server closes). */
  | { type: 'hang' };

export interface MockOpenAiUpstream {
  /** Base URL including the version path, as the `openai` provider expects it. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues replies, used in order, one per request. */
  reply(...replies: ScriptedReply[]): void;
  /** The reply when the queue is empty (default: a 500 error saying nothing is scripted). */
  setDefault(reply: ScriptedReply): void;
  close(): Promise<void>;
}

export async function startMockOpenAiUpstream(): Promise<MockOpenAiUpstream> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  let fallback: ScriptedReply = {
    type: 'json',
    status: 500,
    body: { error: { message: 'No reply scripted.', type: 'server_error', param: null, code: null } },
  };

  const server = createServer((request, response) => {
    void handle(request, response);
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let resolveClosed: () => void = () => undefined;
    const clientClosed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    response.on('close', () => {
      if (!response.writableFinished) resolveClosed();
    });
    const rawBody = await readBody(request);
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body: parseBody(rawBody),
      rawBody,
      clientClosed,
      remotePort: request.socket.remotePort,
      eventsWritten: 0,
    };
    requests.push(recorded);
    await send(response, queue.shift() ?? fallback, recorded);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...replies) => {
      queue.push(...replies);
    },
    setDefault: (reply) => {
      fallback = reply;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function send(response: ServerResponse, reply: ScriptedReply, recorded: RecordedRequest): Promise<void> {
  switch (reply.type) {
    case 'json':
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      response.end(JSON.stringify(reply.body));
      return;
    case 'text':
      response.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain', ...reply.headers });
      response.end(reply.body);
      return;
    case 'drop':
      response.socket?.destroy();
      return;
    case 'hang':
      return;
    case 'sse':
      response.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
      response.flushHeaders();
      for (const step of reply.events) {
        if (step.delayMs) await sleep(step.delayMs);
        if (response.destroyed) return;
        if ('drop' in step) {
          response.socket?.destroy();
          return;
        }
        const flowing = response.write(stepText(step));
        recorded.eventsWritten++;
        // A full socket buffer: wait until the reader (the gateway) takes more.
        if (!flowing) await drainedOrClosed(response);
      }
      if (reply.done !== false) response.write('data: [DONE]\n\n');
      response.end();
      return;
  }
}

function stepText(step: { raw: string } | { data: unknown; event?: string }): string {
  if ('raw' in step) return step.raw;
  const data = `data: ${typeof step.data === 'string' ? step.data : JSON.stringify(step.data)}\n\n`;
  return step.event === undefined ? data : `event: ${step.event}\n${data}`;
}

/** Resolves on 'drain' or 'close', whichever comes first, and leaves no listener behind. */
function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      response.off('drain', done).off('close', done);
      resolve();
    };
    response.on('drain', done).on('close', done);
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
