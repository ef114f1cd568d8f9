import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import { withoutByteOrderMark } from '../byte-order-mark';
import { toUpstreamError } from './transport-errors';
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
  /**
   * How long an idle connection is kept for the next request (`upstream.keep_alive_ms`),
   * also when the upstream's Keep-Alive header offers longer (undici would keep it that long:
   * up to 10 minutes). After a burst (1,000 streams at once hold 1,000 connections) the pool shrinks
   * back within this time, before the idle collection (server.idle_gc, after 30 s of quiet)
   * hands the memory back: sockets, parsers and buffers of idle connections are not garbage.
   */
  keepAliveMs: number;
}

/**
 * The pooled keep-alive upstream client: undici's Agent, driven through `dispatch` with the
 * handlers below. Not `fetch`, whose web streams cost several times a bare proxy's CPU per
 * request (docs/performance.md, "Speed tricks in the code"); nor `request`, whose Node
 * Readable per reply costs more than these handlers (see them).
 */
export function createHttpClient(options: HttpClientOptions): HttpClient & { close(): Promise<void> } {
  const { keepAliveMs } = options;
  const agent = new Agent({
    connect: { timeout: options.connectTimeoutMs },
    headersTimeout: options.firstByteTimeoutMs,
    bodyTimeout: options.idleTimeoutMs,
    // The first applies when the upstream sends no Keep-Alive hint, the second caps its hint.
    keepAliveTimeout: keepAliveMs,
    keepAliveMaxTimeout: keepAliveMs,
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
    request(request: HttpRequest): Promise<HttpResponse> {
      const target = targetOf(request.url);
      const options = { origin: target.origin, path: target.path, method: request.method, headers: request.headers, body: request.body };
      return new Promise<HttpResponse>((resolve, reject) => {
        const handler =
          request.buffered === true
            ? new BufferingHandler(resolve, reject, request.signal)
            : new StreamingHandler(resolve, reject, request.signal);
        if (handler.reason !== null) return reject(handler.reason);
        agent.dispatch(options, handler);
      });
    },
    close: () => agent.close(),
  };
}

const MAX_CACHED_TARGETS = 1_000;

/**
 * Replies are read through undici's `dispatch` with handlers of our own (undici 7's handler
 * interface: onRequestStart, onResponseStart/Data/End/Error, the socket paused, resumed and
 * aborted through the controller) rather than through `request`, which wraps every reply in
 * a Node Readable stream and an async-hooks resource:
 * BufferingHandler keeps the chunks of a reply read whole (`HttpRequest.buffered`, JSON
 * replies) and hands it over at its end; StreamingHandler hands the reply over at its
 * headers and its body as an async iterable fed by the socket, with the same back-pressure
 * (the socket paused past 64 KiB unread, as undici's Readable does). The timeouts, the abort
 * signal and the errors are undici's own, mapped by toUpstreamError, as with `request`.
 *
 * What both handlers share: the call's promise (`resolve` with the reply, `reject` with the
 * error) and the call's signal wired to undici's abort of the request (an already aborted
 * signal: `reason` is set and the request is never dispatched).
 */
abstract class AbortableHandler {
  reason: Error | null = null;
  /** The request's controller, from its start: pauses, resumes and aborts it. */
  protected controller: Dispatcher.DispatchController | null = null;
  private readonly signal: CallSignal | undefined;
  private readonly onAbort: (() => void) | null = null;

  constructor(
    protected readonly resolve: (response: HttpResponse) => void,
    protected readonly reject: (error: unknown) => void,
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
      this.controller?.abort(this.reason);
    };
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason !== null) controller.abort(this.reason);
  }

  /** The request is over: the signal no longer concerns it. */
  protected release(): void {
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** undici's dispatch handler (the interface its own `request` uses) that buffers the reply. */
class BufferingHandler extends AbortableHandler implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: HttpResponse['headers'] = {};
  private readonly chunks: Buffer[] = [];

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: HttpResponse['headers']): void {
    // 1xx informational replies come before the real one.
    if (status < 200) return;
    this.status = status;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.release();
    const { chunks } = this;
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    const text = bodyText(bytes);
    this.resolve({
      status: this.status,
      headers: this.headers,
      body: once(bytes),
      text: () => Promise.resolve(text),
      discard: () => Promise.resolve(),
      finish: () => undefined,
    });
  }

  // undici may report a failure before the request started: the controller is not used.
  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.release();
    this.reject(toUpstreamError(error));
  }
}

/** Unread bytes past which the upstream socket is paused (undici's Readable highWaterMark). */
const HIGH_WATER_BYTES = 64 * 1024;

/** undici's dispatch handler for a reply read as it arrives (streams, and error bodies read whole). */
class StreamingHandler extends AbortableHandler implements Dispatcher.DispatchHandler {
  /** The reply's headers came (and the reply was handed over). */
  private started = false;
  /** Received, not yet read. */
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  private ended = false;
  /** The transport's error once the reply has started (mapped); read after the queued chunks. */
  private failure: Error | null = null;
  private waiting: { resolve: (result: IteratorResult<Uint8Array>) => void; reject: (error: unknown) => void } | null = null;
  private iterated = false;
  /** The reply's body: read once, by its reader or by text(). */
  private readonly body: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => this.iterator() };
  /** The reader stopped: what still arrives is dropped. */
  private dropping = false;
  private finishing = false;
  private onEnd: (() => void) | null = null;
  private wakeScheduled = false;
  private readonly wake = (): void => {
    this.wakeScheduled = false;
    const waiting = this.waiting;
    if (waiting === null || this.queue.length === 0) return;
    this.waiting = null;
    waiting.resolve(this.take());
  };

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: HttpResponse['headers']): void {
    if (status < 200) return;
    this.started = true;
    this.resolve({
      status,
      headers,
      body: this.body,
      text: () => this.text(),
      discard: () => this.discard(),
      finish: () => {
        this.finishing = true;
      },
    });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.dropping) return;
    this.queue.push(chunk);
    this.queuedBytes += chunk.length;
    // undici hands over each piece of a chunked body on its own, all those of one socket read
    // in one go: the reader gets them together, once that read is parsed (as from a Readable).
    if (this.waiting !== null && !this.wakeScheduled) {
      this.wakeScheduled = true;
      queueMicrotask(this.wake);
    }
    if (this.queuedBytes >= HIGH_WATER_BYTES) controller.pause();
  }

  onResponseEnd(): void {
    this.ended = true;
    this.settle();
  }

  // undici may report a failure before the request started: the controller is not used.
  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    const mapped = toUpstreamError(error);
    // No headers yet: the request itself failed.
    if (!this.started) {
      this.release();
      return this.reject(mapped);
    }
    this.failure = mapped;
    this.settle();
  }

  /** The reply ended, or failed: wakes a waiting reader. */
  private settle(): void {
    this.release();
    const waiting = this.waiting;
    // With data still queued, the scheduled wake hands it over first.
    if (waiting !== null && this.queue.length === 0) {
      this.waiting = null;
      if (this.failure) waiting.reject(this.failure);
      else waiting.resolve(DONE);
    }
    const onEnd = this.onEnd;
    this.onEnd = null;
    onEnd?.();
  }

  /** Everything queued, as one chunk (as a Readable's read() gives it); the socket resumed. */
  private take(): IteratorResult<Uint8Array> {
    const queue = this.queue;
    const chunk = queue.length === 1 ? (queue[0] as Buffer) : Buffer.concat(queue, this.queuedBytes);
    this.queue = [];
    this.queuedBytes = 0;
    this.resumeIfPaused();
    return { value: chunk, done: false };
  }

  private iterator(): AsyncIterator<Uint8Array> {
    if (this.iterated) throw new TypeError('The body of a reply can be read once.');
    this.iterated = true;
    return {
      next: () => {
        if (this.queue.length > 0) return Promise.resolve(this.take());
        if (this.failure) return Promise.reject(this.failure);
        if (this.ended || this.dropping) return Promise.resolve(DONE);
        return new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
      return: () => {
        this.stopReading();
        return Promise.resolve(DONE);
      },
    };
  }

  /**
   * The reader stopped before the end. A reader that said it had all it needed (`finish`)
   * lets the body end in the background, keeping the connection, for at most BODY_FINISH_MS;
   * any other closes the connection at once (no error reaches anyone).
   */
  private stopReading(): void {
    if (this.dropping || this.ended || this.failure) return;
    this.dropping = true;
    this.queue = [];
    this.queuedBytes = 0;
    if (!this.finishing) {
      this.controller?.abort(new undiciErrors.RequestAbortedError());
      return;
    }
    const timer = setTimeout(() => this.controller?.abort(new undiciErrors.RequestAbortedError()), BODY_FINISH_MS);
    timer.unref();
    this.whenEnded(() => clearTimeout(timer));
    this.resumeIfPaused();
  }

  /** Runs `callback` once the reply has ended or failed (settle), after those added before it. */
  private whenEnded(callback: () => void): void {
    const before = this.onEnd;
    this.onEnd =
      before === null
        ? callback
        : () => {
            before();
            callback();
          };
  }

  private resumeIfPaused(): void {
    if (this.controller?.paused) this.controller.resume();
  }

  private async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.body) chunks.push(chunk as Buffer);
    return bodyText(Buffer.concat(chunks));
  }

  /** Reads the rest of the body and drops it (the connection is kept), as undici's body.dump() for a small body. */
  private discard(): Promise<void> {
    if (this.ended || this.failure) return Promise.resolve();
    return new Promise<void>((resolve) => {
      // Resolved by settle(), when the rest has come or the finishing time ran out.
      this.whenEnded(resolve);
      this.finishing = true;
      this.stopReading();
    });
  }
}

const DONE: IteratorResult<Uint8Array> = { value: undefined, done: true };

/** A whole reply body as text, as undici's body.text() gives it (UTF-8, a byte order mark dropped). */
function bodyText(bytes: Buffer): string {
  return withoutByteOrderMark(bytes.toString('utf8'));
}

function abortReason(signal: CallSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new undiciErrors.RequestAbortedError();
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  if (bytes.length > 0) yield bytes;
}

/** How long a body left before its end may take to end on its own before it is destroyed. */
const BODY_FINISH_MS = 5_000;
