import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../server/errors/gateway-error';
import { CallAbort } from '../../server/providers/call-signal';
import { createHttpClient, isAbortError } from '../../server/providers/http-client';

/**
 * The upstream HTTP client's two ways of reading a reply: as a stream (`request`) and read
 * whole (`buffered: true`), which must give the same status, headers, text and errors.
 */
describe('HTTP client', () => {
  let server: Server;
  let base: string;
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
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
        seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
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
    const http = createHttpClient({ connectTimeoutMs: 1_000, firstByteTimeoutMs: 1_000, idleTimeoutMs: 200 });
    try {
      await use(http);
    } finally {
      await http.close();
    }
  };

  it.each([false, true])('reads a reply in several chunks the same way (buffered: %s)', async (buffered) => {
    await withClient(async (http) => {
      const response = await http.request({ url: `${base}/chunks`, method: 'POST', headers: { 'content-type': 'application/json', 'x-test': 'yes' }, body: '{"q":1}', buffered });
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
      const failure = await http.request({ url: `${base}/stall`, method: 'GET', headers: {}, buffered: true }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UpstreamError);
      expect((failure as UpstreamError).kind).toBe('timeout');
    });
  });

  it('an unreachable upstream is an UpstreamError', async () => {
    await withClient(async (http) => {
      const failure = await http.request({ url: 'http://127.0.0.1:1/x', method: 'GET', headers: {}, buffered: true }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UpstreamError);
      expect((failure as UpstreamError).kind).toBe('unavailable');
    });
  });

  it.each([
    ['AbortController', true],
    ['CallAbort', true],
    ['AbortController', false],
    ['CallAbort', false],
  ] as const)('a %s cancels a pending request (buffered: %s): the upstream sees the connection close, and an aborted one is never sent', async (kind, buffered) => {
    const make = () => (kind === 'AbortController' ? new AbortController() : new CallAbort());
    await withClient(async (http) => {
      const controller = make();
      const requests = seen.length;
      const pending = http.request({ url: `${base}/never`, method: 'GET', headers: {}, signal: controller.signal, buffered }).catch((error: unknown) => error);
      await waitFor(() => seen.length === requests + 1 && seen.at(-1)?.url === '/never');
      const closedBefore = closedBeforeReply;
      controller.abort();
      expect(isAbortError(await pending)).toBe(true);
      await waitFor(() => closedBeforeReply === closedBefore + 1);

      const aborted = make();
      aborted.abort();
      const refused = await http.request({ url: `${base}/never`, method: 'GET', headers: {}, signal: aborted.signal, buffered }).catch((error: unknown) => error);
      expect(isAbortError(refused)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen.length).toBe(requests + 1);
    });
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
