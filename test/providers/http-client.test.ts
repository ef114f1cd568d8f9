import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../server/errors/gateway-error';
import { CallAbort } from '../../server/providers/call-signal';
import { createHttpClient } from '../../server/providers/http-client';
import { isAbortError } from '../../server/providers/transport-errors';

/**
 * The upstream HTTP client's two ways of reading a reply: as a stream (`request`) and read
 * whole (`buffered: true`), which must give the same status, headers, text and errors.
 */
describe('HTTP client', () => {
  let server: Server;
  let base: string;
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string; port: number }[] = [];
  let closedBeforeReply = 0;
  const routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {
    // Several writes, a byte order mark first, a multi-byte character split across two writes.
    '/chunks': (_request, response) => {
      response.writeHead(201, { 'content-type': 'application/json', 'x-one': 'a', 'set-cookie': ['a=1', 'b=2'] });
      const euro = Buffer.from('€');
      response.write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"text":"'), euro.subarray(0, 1)]));
      setTimeout(() => response.end(Buffer.concat([euro.subarray(1), Buffer.from('"}')])), 20);
    },
    '/empty': (_request, response) => response.writeHead(204).end(),
    '/error': (_request, response) => response.writeHead(503, { 'retry-after': '2' }).end('{"error":{"message":"busy"}}'),
    '/never': (request) => request.socket.once('close', () => closedBeforeReply++),
    '/drip': (request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
      const timer = setInterval(() => response.write('data: more\n\n'), 20);
      request.socket.once('close', () => {
        clearInterval(timer);
        if (!response.writableEnded) closedBeforeReply++;
      });
      setTimeout(() => {
        clearInterval(timer);
        response.end('data: [DONE]\n\n');
      }, 100);
    },
    '/cut': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: before\n\n');
      setTimeout(() => response.socket?.destroy(), 20);
    },
    '/large': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let index = 0; index < 64; index++) response.write(Buffer.alloc(16 * 1024, index));
      response.end();
    },
    '/stall': (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"partial":');
    },
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        seen.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body,
          port: request.socket.remotePort ?? 0,
        });
        routes[request.url ?? '']?.(request, response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** A client of its own for one test, closed after it. */
  const withClient = async (use: (http: ReturnType<typeof createHttpClient>) => Promise<void>): Promise<void> => {
    const http = createHttpClient({ connectTimeoutMs: 1_000, firstByteTimeoutMs: 1_000, idleTimeoutMs: 200, keepAliveMs: 20_000 });
    try {
      await use(http);
    } finally {
      await http.close();
    }
  };

  it.each([false, true])('reads a reply in several chunks the same way (buffered: %s)', async (buffered) => {
    await withClient(async (http) => {
      const response = await http.request({
        url: `${base}/chunks`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-test': 'yes' },
        body: '{"q":1}',
        buffered,
      });
      expect(response.status).toBe(201);
      expect(response.headers['x-one']).toBe('a');
      expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      expect(await response.text()).toBe('{"text":"€"}');
      const last = seen.at(-1);
      expect(last).toMatchObject({ method: 'POST', url: '/chunks', body: '{"q":1}' });
      expect(last?.headers['x-test']).toBe('yes');
    });
  });

  it('a buffered reply can also be iterated, and an empty one is empty text', async () => {
    await withClient(async (http) => {
      const response = await http.request({ url: `${base}/chunks`, method: 'GET', headers: {}, buffered: true });
      const parts: Uint8Array[] = [];
      for await (const part of response.body) parts.push(part);
      expect(Buffer.concat(parts).toString('utf8')).toBe('\ufeff{"text":"€"}');
      const empty = await http.request({ url: `${base}/empty`, method: 'GET', headers: {}, buffered: true });
      expect(empty.status).toBe(204);
      expect(await empty.text()).toBe('');
    });
  });

  it('an error status is a reply like any other, with its body', async () => {
    await withClient(async (http) => {
      const response = await http.request({ url: `${base}/error`, method: 'GET', headers: {}, buffered: true });
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('2');
      expect(await response.text()).toBe('{"error":{"message":"busy"}}');
    });
  });

  it('a body that stalls past the idle timeout is an UpstreamError timeout', async () => {
    await withClient(async (http) => {
      const failure = await http
        .request({ url: `${base}/stall`, method: 'GET', headers: {}, buffered: true })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UpstreamError);
      expect((failure as UpstreamError).kind).toBe('timeout');
    });
  });

  it('an unreachable upstream is an UpstreamError', async () => {
    await withClient(async (http) => {
      const failure = await http
        .request({ url: 'http://127.0.0.1:1/x', method: 'GET', headers: {}, buffered: true })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UpstreamError);
      expect((failure as UpstreamError).kind).toBe('unavailable');
    });
  });

  it('a streamed body comes as it arrives; a reader that stops early closes the connection, one that said finish() keeps it', async () => {
    await withClient(async (http) => {
      const closedBefore = closedBeforeReply;
      const stopped = await http.request({ url: `${base}/drip`, method: 'GET', headers: {} });
      for await (const part of stopped.body) {
        expect(Buffer.from(part).toString('utf8')).toBe('data: 1\n\n');
        break;
      }
      await waitFor(() => closedBeforeReply === closedBefore + 1);
    });
    // A client of its own: undici's pool would open a new connection for the one closed above.
    await withClient(async (http) => {
      const closedBefore = closedBeforeReply;
      const finished = await http.request({ url: `${base}/drip`, method: 'GET', headers: {} });
      const port = seen.at(-1)?.port;
      finished.finish();
      for await (const part of finished.body) {
        expect(part.length).toBeGreaterThan(0);
        break;
      }
      // The rest of the body ends in the background (~100 ms); the connection is then free again.
      await new Promise((resolve) => setTimeout(resolve, 150));
      const next = await http.request({ url: `${base}/error`, method: 'GET', headers: {} });
      expect(seen.at(-1)?.port).toBe(port);
      expect(closedBeforeReply).toBe(closedBefore);
      await next.discard();
      // undici frees the connection right after the body's end has been handed over.
      await new Promise((resolve) => setTimeout(resolve, 10));
      const after = await http.request({ url: `${base}/error`, method: 'GET', headers: {} });
      expect(seen.at(-1)?.port).toBe(port);
      expect(await after.text()).toBe('{"error":{"message":"busy"}}');
    });
  });

  it.each([
    ['cut off by the upstream', '/cut', 'data: before\n\n', 'unavailable'],
    ['that stalls past the idle timeout', '/stall', '{"partial":', 'timeout'],
  ] as const)('a streamed body %s gives what came before, then an UpstreamError', async (_case, path, before, kind) => {
    await withClient(async (http) => {
      const response = await http.request({ url: `${base}${path}`, method: 'GET', headers: {} });
      const parts: string[] = [];
      const failure = await (async () => {
        for await (const part of response.body) parts.push(Buffer.from(part).toString('utf8'));
      })().catch((error: unknown) => error);
      expect(parts.join('')).toBe(before);
      expect(failure).toBeInstanceOf(UpstreamError);
      expect((failure as UpstreamError).kind).toBe(kind);
    });
  });

  it('a slow reader of a large streamed body gets every byte in order (the socket paused and resumed)', async () => {
    await withClient(async (http) => {
      const response = await http.request({ url: `${base}/large`, method: 'GET', headers: {} });
      const parts: Buffer[] = [];
      for await (const part of response.body) {
        parts.push(Buffer.from(part));
        if (parts.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const body = Buffer.concat(parts);
      expect(body.length).toBe(64 * 16 * 1024);
      for (let index = 0; index < 64; index++) expect(body[index * 16 * 1024 + 100]).toBe(index);
    });
  });

  it('a signal that fires while a streamed body is read ends the read with an abort error and closes the connection', async () => {
    await withClient(async (http) => {
      const controller = new CallAbort();
      const closedBefore = closedBeforeReply;
      const response = await http.request({ url: `${base}/drip`, method: 'GET', headers: {}, signal: controller.signal });
      const failure = await (async () => {
        for await (const _part of response.body) controller.abort();
      })().catch((error: unknown) => error);
      expect(isAbortError(failure)).toBe(true);
      await waitFor(() => closedBeforeReply === closedBefore + 1);
    });
  });

  it.each([
    ['AbortController', true],
    ['CallAbort', true],
    ['AbortController', false],
    ['CallAbort', false],
  ] as const)(
    'a %s cancels a pending request (buffered: %s): the upstream sees the connection close, and an aborted one is never sent',
    async (kind, buffered) => {
      const make = () => (kind === 'AbortController' ? new AbortController() : new CallAbort());
      await withClient(async (http) => {
        const controller = make();
        const requests = seen.length;
        const pending = http
          .request({ url: `${base}/never`, method: 'GET', headers: {}, signal: controller.signal, buffered })
          .catch((error: unknown) => error);
        await waitFor(() => seen.length === requests + 1 && seen.at(-1)?.url === '/never');
        const closedBefore = closedBeforeReply;
        controller.abort();
        expect(isAbortError(await pending)).toBe(true);
        await waitFor(() => closedBeforeReply === closedBefore + 1);

        const aborted = make();
        aborted.abort();
        const refused = await http
          .request({ url: `${base}/never`, method: 'GET', headers: {}, signal: aborted.signal, buffered })
          .catch((error: unknown) => error);
        expect(isAbortError(refused)).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(seen.length).toBe(requests + 1);
      });
    },
  );
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe('HTTP client keep-alive', () => {
  it('keeps an idle connection for the next request, then closes it after keepAliveMs although the upstream offers 120 s', async () => {
    const server = createServer((_request, response) => response.end('ok'));
    // Node then answers `Keep-Alive: timeout=120`, which undici would honour by itself.
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const connections = () =>
      new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    const http = createHttpClient({ connectTimeoutMs: 1_000, firstByteTimeoutMs: 1_000, idleTimeoutMs: 1_000, keepAliveMs: 500 });
    const ports: number[] = [];
    server.on('connection', (socket) => ports.push(socket.remotePort ?? 0));
    try {
      const first = await http.request({ url, method: 'GET', headers: {}, buffered: true });
      expect(first.headers['keep-alive']).toBe('timeout=120');
      expect(await first.text()).toBe('ok');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await connections()).toBe(1);
      await (await http.request({ url, method: 'GET', headers: {}, buffered: true })).text();
      expect(ports).toHaveLength(1);
      const deadline = Date.now() + 3_000;
      while ((await connections()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await connections()).toBe(0);
      expect(await (await http.request({ url, method: 'GET', headers: {}, buffered: true })).text()).toBe('ok');
      expect(ports).toHaveLength(2);
    } finally {
      await http.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
