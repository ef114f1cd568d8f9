import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Gemini API (https://ai.google.dev/api) on a real HTTP server, for adapter tests that
 * go through the real pooled HTTP client. Tests queue replies; every request is recorded.
 */

export interface RecordedRequest {
  method: string;
  /** Path including the query, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body, or undefined when it was not JSON. */
  body: unknown;
  rawBody: string;
  /** Resolves when the client went away before the reply was complete (abort, early stop). */
  aborted: Promise<void>;
  wasAborted(): boolean;
}

export type MockReply =
  /** A JSON body; Google's errors are `{error: {code, message, status, details}}`. */
  | { type: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  /**
   * An `alt=sse` stream: each event is a GenerateContentResponse (objects are JSON-encoded,
   * strings sent as the raw `data`). `chunkBytes` writes the bytes in pieces of that size;
   * `dropAfter` destroys the socket after that many events; `hold` keeps the stream open after
   * the events (a model still generating); `lineEnding` defaults to CRLF as Google sends.
   */
  | { type: 'sse'; events: unknown[]; status?: number; chunkBytes?: number; dropAfter?: number; hold?: boolean; lineEnding?: '\r\n' | '\n' }
  /** Any bytes with any content type (garbage, HTML error pages). */
  | { type: 'raw'; status?: number; body: string; contentType?: string }
  /** Destroy the connection without answering. */
  | { type: 'drop' }
  /** Never answer, not even the headers (for abort tests). */
  | { type: 'hang' };

export interface MockGeminiUpstream {
  /** Host root, as configured for the provider (`base_url`). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues replies, used in order; with an empty queue the server answers 500. */
  reply(...replies: MockReply[]): void;
  close(): Promise<void>;
}

export async function startMockGeminiUpstream(): Promise<MockGeminiUpstream> {
  const queue: MockReply[] = [];
  const requests: RecordedRequest[] = [];

  const server = createServer((request, response) => {
    void handle(request, response);
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
    const reply = queue.shift() ?? {
      type: 'json',
      status: 500,
      body: { error: { code: 500, message: 'The mock has no scripted reply.', status: 'INTERNAL' } },
    };
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
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The bytes of an `alt=sse` stream, one `data:` line per event. */
export function sseBody(events: unknown[], lineEnding: '\r\n' | '\n' = '\r\n'): string {
  return events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}${lineEnding}${lineEnding}`).join('');
}

async function send(reply: MockReply, response: ServerResponse): Promise<void> {
  switch (reply.type) {
    case 'json':
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json; charset=UTF-8', ...reply.headers });
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
    case 'sse': {
      response.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.flushHeaders();
      const events = reply.dropAfter === undefined ? reply.events : reply.events.slice(0, reply.dropAfter);
      const bytes = Buffer.from(sseBody(events, reply.lineEnding), 'utf8');
      const size = reply.chunkBytes ?? bytes.length;
      for (let offset = 0; offset < bytes.length; offset += size) {
        if (response.destroyed) return;
        response.write(bytes.subarray(offset, offset + size));
        // Let each piece leave on its own so that the client sees the splits.
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (reply.dropAfter !== undefined) {
        // Give the written events time to arrive, then cut the connection mid-stream.
        await new Promise((resolve) => setTimeout(resolve, 20));
        response.socket?.destroy();
        return;
      }
      if (reply.hold) return;
      response.end();
      return;
    }
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
