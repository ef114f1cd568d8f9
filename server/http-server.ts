import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from './config/load-config';
import { GatewayError } from './errors/gateway-error';
import { errorJson } from './errors/render-error';
import { startIdleCollector } from './memory/idle-collector';

/**
 * The Node HTTP server around the app, with the limits against slow and malformed clients
 * (config `server.*_timeout_ms`): the headers, then the whole request, must arrive in time
 * (slowloris), idle keep-alive sockets are closed. Node answers those failures itself,
 * before the app sees a request; `clientError` gives them the error envelope too.
 */
export function createHttpServer(app: RequestListener, settings: Config['server']): Server {
  const idle = settings.idleGc ? startIdleCollector({ quietMs: IDLE_GC_QUIET_MS, growthBytes: IDLE_GC_GROWTH_BYTES }) : null;
  const listener: RequestListener = idle
    ? (request, response) => {
        idle.noteRequest();
        app(request, response);
      }
    : app;
  const server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      // Node's requestTimeout bounds receiving the request only; a long stream is unaffected.
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      // How often Node checks those timeouts (default 30 s, which would let a slow client
      // hold its socket up to 30 s past the limit).
      connectionsCheckingInterval: Math.min(1_000, Math.max(50, Math.floor(settings.headersTimeoutMs / 4))),
    },
    listener,
  );
  // Each socket's latest response, so `clientError` knows whether one is under way there.
  const responses = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (response.socket !== null) responses.set(response.socket, response);
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const response = responses.get(socket);
    answerClientError(error, socket, response !== undefined && response.headersSent && !response.writableFinished);
  });
  if (idle) server.once('close', () => idle.stop());
  return server;
}

/** Quiet: no new request for this long (see idle-collector.ts for why not sooner). */
export const IDLE_GC_QUIET_MS = 30_000;
/** Worth a collection: the heap grew this much since the last one. */
const IDLE_GC_GROWTH_BYTES = 32 * 1024 * 1024;

function answerClientError(error: Error & { code?: string }, socket: Duplex, inProgress: boolean): void {
  // A response already under way on this socket cannot get another status line.
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress) {
    socket.destroy();
    return;
  }
  const [status, reason, gatewayError] = describe(error.code);
  const body = errorJson(gatewayError);
  socket.end(
    // docs/errors.md: every response carries x-request-id (none could be read from this request).
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID().replace(/-/g, '')}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function describe(code: string | undefined): [number, string, GatewayError] {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return [
      408,
      'Request Timeout',
      new GatewayError(408, 'invalid_request_error', 'request_timeout', 'The request was not received in time.'),
    ];
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return [
      431,
      'Request Header Fields Too Large',
      new GatewayError(431, 'invalid_request_error', 'headers_too_large', 'The request headers are too large.'),
    ];
  }
  return [400, 'Bad Request', new GatewayError(400, 'invalid_request_error', 'bad_request', 'The request is not valid HTTP.')];
}
