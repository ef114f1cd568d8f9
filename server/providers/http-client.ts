import type { Readable } from 'node:stream';
import { Agent, errors as undiciErrors, util as undiciUtil, type Dispatcher } from 'undici';
import { withoutByteOrderMark } from '../byte-order-mark';
import { UpstreamError } from '../errors/gateway-error';
import type { CallSignal } from './call-signal';
import type { HttpClient, HttpRequest, HttpResponse } from './types';

export interface HttpClientOptions {
  /** TCP/TLS connect timeout. */
  connectTimeoutMs: number;
  /** Time until the response headers (first byte) arrive. */
  firstByteTimeoutMs: number;
  /** Longest silence between two body chunks. */
  idleTimeoutMs: number;
  /**
   * Connections per upstream origin; default unbounded, like Node's own agent. A stream holds
   * its connection for as long as it lasts, so a cap would queue the next stream behind whole
   * streams (until `first_byte_timeout_ms`) while the provider could serve it at once.
   */
  connectionsPerOrigin?: number;
}

/**
 * The pooled keep-alive upstream client. undici's `dispatcher.request` is used rather than
 * `fetch`: measured here, fetch + web streams costs ~900 µs of CPU per request against
 * ~250 µs for a bare proxy; `request` hands back a Node stream with none of that overhead.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient & { close(): Promise<void> } {
  const agent = new Agent({
    connect: { timeout: options.connectTimeoutMs },
    headersTimeout: options.firstByteTimeoutMs,
    bodyTimeout: options.idleTimeoutMs,
    keepAliveTimeout: 30_000,
    connections: options.connectionsPerOrigin ?? null,
    pipelining: 1,
  });
  // The same few URLs (one per provider and route) are called over and over: parsed once.
  const targets = new Map<string, { origin: string; path: string }>();
  const targetOf = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: parsed.pathname + parsed.search };
      // Gemini URLs name the model: bounded by the catalogue, but never let it grow unchecked.
      if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
      targets.set(url, target);
    }
    return target;
  };

  return {
    async request(request: HttpRequest): Promise<HttpResponse> {
      if (request.buffered === true) return requestBuffered(agent, targetOf(request.url), request);
      let response;
      try {
        const target = targetOf(request.url);
        response = await agent.request({
          origin: target.origin,
          path: target.path,
          method: request.method,
          headers: request.headers,
          body: request.body,
          // undici takes any EventTarget-like signal (call-signal.ts); its types name AbortSignal.
          signal: request.signal as AbortSignal | undefined,
        });
      } catch (error) {
        throw toUpstreamError(error);
      }
      const body = response.body;
      let finishing = false;
      return {
        status: response.statusCode,
        headers: response.headers,
        body: mapBodyErrors(body, () => finishing),
        text: async () => {
          try {
            return await body.text();
          } catch (error) {
            throw toUpstreamError(error);
          }
        },
        discard: async () => {
          try {
            await body.dump();
          } catch {
            // The connection is being discarded anyway.
          }
        },
        finish: () => {
          finishing = true;
        },
      };
    },
    close: () => agent.close(),
  };
}

const MAX_CACHED_TARGETS = 1_000;

/**
 * A request whose reply is read whole (`HttpRequest.buffered`): through undici's dispatch
 * with a handler of our own that keeps the body's chunks, rather than `request`, which wraps
 * every reply in a Node Readable stream (and an async-hooks resource) only for it to be read
 * to its end at once. Resolves once the whole body arrived; the timeouts, the abort signal and
 * the errors are the same as `request`'s (undici's own, mapped by toUpstreamError).
 */
function requestBuffered(agent: Agent, target: { origin: string; path: string }, request: HttpRequest): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    const handler = new BufferingHandler(resolve, reject, request.signal);
    if (handler.reason !== null) return reject(handler.reason);
    agent.dispatch({ origin: target.origin, path: target.path, method: request.method, headers: request.headers, body: request.body }, handler);
  });
}

/** undici's dispatch handler (the interface its own `request` uses) that buffers the reply. */
class BufferingHandler implements Dispatcher.DispatchHandler {
  reason: Error | null = null;
  private abort: ((reason: Error) => void) | null = null;
  private status = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private readonly chunks: Buffer[] = [];
  private readonly signal: CallSignal | undefined;
  private readonly onAbort: (() => void) | null = null;

  constructor(
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: unknown) => void,
    signal: CallSignal | undefined,
  ) {
    if (!signal) return;
    if (signal.aborted) {
      this.reason = abortReason(signal);
      return;
    }
    this.signal = signal;
    this.onAbort = () => {
      this.reason = abortReason(signal);
      this.abort?.(this.reason);
    };
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onConnect(abort: (reason: Error) => void): void {
    if (this.reason !== null) return abort(this.reason);
    this.abort = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[]): boolean {
    // 1xx informational replies come before the real one.
    if (status < 200) return true;
    this.status = status;
    this.headers = undiciUtil.parseHeaders(rawHeaders) as Record<string, string | string[] | undefined>;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.release();
    const { chunks } = this;
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    // As undici's body.text().
    const text = withoutByteOrderMark(bytes.toString('utf8'));
    this.resolve({
      status: this.status,
      headers: this.headers,
      body: once(bytes),
      text: () => Promise.resolve(text),
      discard: () => Promise.resolve(),
      finish: () => undefined,
    });
  }

  onError(error: Error): void {
    this.release();
    this.reject(toUpstreamError(error));
  }

  private release(): void {
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
  }
}

function abortReason(signal: CallSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new undiciErrors.RequestAbortedError();
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  if (bytes.length > 0) yield bytes;
}

/**
 * The body's chunks, transport errors mapped. A reader that stops before the end closes the
 * connection, unless it said it had all it needed (`finish`, e.g. after `[DONE]`): the body
 * then ends in the background and the connection goes back to the pool, and no abort error
 * is made (with its stack trace) for a body that was about to end anyway.
 */
async function* mapBodyErrors(body: Readable, finishing: () => boolean): AsyncGenerator<Uint8Array> {
  let settled = false;
  try {
    for await (const chunk of body.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
    settled = true;
  } catch (error) {
    settled = true;
    throw toUpstreamError(error);
  } finally {
    if (!settled) {
      // Nothing reads the body any more: its closing error (an abort) is nobody's to handle.
      body.on('error', () => undefined);
      if (finishing()) finishInBackground(body);
      else body.destroy();
    }
  }
}

/** How long a body left before its end may take to end on its own before it is destroyed. */
const BODY_FINISH_MS = 5_000;

function finishInBackground(body: Readable): void {
  if (body.destroyed || body.readableEnded) return;
  const timer = setTimeout(() => body.destroy(), BODY_FINISH_MS);
  timer.unref();
  body.once('close', () => clearTimeout(timer));
  body.resume();
}

/** One place that turns transport failures into UpstreamErrors (decisions.md §1: 502/504). */
export function toUpstreamError(error: unknown): UpstreamError | Error {
  if (error instanceof UpstreamError) return error;
  if (isAbortError(error)) return error as Error;
  if (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  ) {
    return new UpstreamError('timeout', 'The model provider did not answer in time.', { retryable: true, cause: error });
  }
  return new UpstreamError('unavailable', 'The model provider could not be reached.', { retryable: true, cause: error });
}

export function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'AbortError' || (error as { code?: string }).code === 'UND_ERR_ABORTED' || error instanceof undiciErrors.RequestAbortedError)
  );
}
