import type { ServerResponse } from 'node:http';
import type { RequestContext } from './request-context';

/** Response header with the gateway's own time in ms (until the headers, minus upstream waiting). */
export const OVERHEAD_HEADER = 'x-gateway-overhead-ms';

/** What the business code may know of the client: whether it went away. */
export interface ClientConnection {
  /** `listener` runs once when the response closes: sent in full, or the client went away. */
  onClose(listener: () => void): void;
  offClose(listener: () => void): void;
}

/**
 * How a model route's handler answers (docs/architecture.md, "Request path"): a JSON reply,
 * or an SSE stream written with back-pressure. Every reply carries `x-request-id`, the
 * context's headers (the rate-limit headers) and `x-gateway-overhead-ms`, set when the
 * headers go out.
 */
export interface Reply extends ClientConnection {
  readonly headersSent: boolean;
  /** The response was sent in full or the client went away: nothing more can be written. */
  readonly closed: boolean;
  sendJson(status: number, json: string, headers?: Readonly<Record<string, string>>): void;
  /** Status 200 and `headers` for an event stream; they go out with the first write or `flushHeaders`. */
  startStream(headers: Readonly<Record<string, string>>): void;
  flushHeaders(): void;
  /** false: the socket's buffer is full, wait for `onDrain` before writing more. */
  write(chunk: string): boolean;
  onDrain(listener: () => void): void;
  end(chunk?: string): void;
  /** Cuts the connection: the reply started and cannot be finished properly. */
  destroy(): void;
}

/** The Reply over Node's ServerResponse. */
export class ServerReply implements Reply {
  /** Whether `x-request-id` is among the response's headers yet (set with the first of them). */
  private requestIdSet = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly context: RequestContext,
  ) {}

  get headersSent(): boolean {
    return this.response.headersSent;
  }

  get closed(): boolean {
    return this.response.writableEnded || this.response.destroyed;
  }

  onClose(listener: () => void): void {
    this.response.once('close', listener);
  }

  offClose(listener: () => void): void {
    this.response.off('close', listener);
  }

  sendJson(status: number, json: string, headers?: Readonly<Record<string, string>>): void {
    const { response, context } = this;
    if (response.headersSent) {
      // Too late for a status line: end the response so the client is not left waiting.
      response.end();
      return;
    }
    // docs/performance.md, "Speed tricks in the code": the headers given to writeHead as one
    // list instead of a setHeader call each (Node validates and stores each of those in an
    // object of its own). An error's own headers (its `retry-after`) win over the context's.
    const list: string[] = [REQUEST_ID_HEADER, context.requestId];
    const extra = context.responseHeaders;
    if (extra !== null) {
      for (const name in extra) if (headers === undefined || !hasHeader(headers, name)) list.push(name, extra[name] as string);
    }
    list.push(OVERHEAD_HEADER, context.markHeaders().toFixed(2));
    if (headers !== undefined) for (const name in headers) list.push(name, headers[name] as string);
    list.push('content-type', JSON_CONTENT_TYPE, 'content-length', String(Buffer.byteLength(json)));
    this.requestIdSet = true;
    response.writeHead(status, list);
    context.markFirstByte();
    if (context.bodyLimitBytes > 0) context.keepResponseText(json);
    response.end(json);
  }

  startStream(headers: Readonly<Record<string, string>>): void {
    this.setRequestIdHeader();
    for (const name in headers) this.response.setHeader(name, headers[name] as string);
    this.response.statusCode = 200;
  }

  flushHeaders(): void {
    if (this.response.headersSent) return;
    this.prepareHeaders();
    this.response.flushHeaders();
  }

  write(chunk: string): boolean {
    if (!this.response.headersSent) this.prepareHeaders();
    this.context.markFirstByte();
    if (this.context.bodyLimitBytes > 0) this.context.keepResponseText(chunk);
    return this.response.write(chunk);
  }

  onDrain(listener: () => void): void {
    this.response.once('drain', listener);
  }

  end(chunk?: string): void {
    if (!this.response.headersSent) this.prepareHeaders();
    if (chunk === undefined || chunk.length === 0) {
      this.response.end();
      return;
    }
    this.context.markFirstByte();
    if (this.context.bodyLimitBytes > 0) this.context.keepResponseText(chunk);
    this.response.end(chunk);
  }

  destroy(): void {
    this.response.destroy();
  }

  /** The context's headers and the overhead, just before the headers go out. */
  private prepareHeaders(): void {
    const { response, context } = this;
    this.setRequestIdHeader();
    const extra = context.responseHeaders;
    if (extra !== null) for (const name in extra) response.setHeader(name, extra[name] as string);
    response.setHeader(OVERHEAD_HEADER, context.markHeaders().toFixed(2));
  }

  /** `x-request-id`, the first header of every model reply. */
  private setRequestIdHeader(): void {
    if (this.requestIdSet) return;
    this.requestIdSet = true;
    this.response.setHeader(REQUEST_ID_HEADER, this.context.requestId);
  }
}

/** Whether `headers` has `name`, whatever the case of either (as Node's header names). */
function hasHeader(headers: Readonly<Record<string, string>>, name: string): boolean {
  const wanted = name.toLowerCase();
  for (const own in headers) if (own.toLowerCase() === wanted) return true;
  return false;
}

const REQUEST_ID_HEADER = 'x-request-id';
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
