import { initClient, type AppRoute, type InitClientReturn } from '@ts-rest/core';
import type { z } from 'zod';
import { contract, type Contract } from './index.js';
import type { ErrorBodyShape } from './errors.js';
import { readEvents } from './event-stream.js';

// The package's one entry point also carries the contract, its schemas and their types.
export * from './index.js';

export interface GatewayClientOptions {
  /** The gateway's address without `/v1`, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** An `sk-` key for models, a `uk-` key for the usage report, or the admin token. */
  apiKey?: string | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** fetch's `credentials`: the dashboard sends its session cookie with `same-origin`. */
  credentials?: 'omit' | 'same-origin' | 'include' | undefined;
}

/**
 * A route whose reply can be streamed: its contract entry names the schema of one event in
 * `metadata.streamChunk` (chat completions today). A new streaming route needs only that
 * entry to be streamed by `stream()` with typed events.
 */
export type StreamingRoute = AppRoute & {
  method: 'POST';
  body: z.ZodTypeAny;
  metadata: { readonly streamChunk: z.ZodTypeAny; readonly [key: string]: unknown };
};

/** One decoded event of a streaming route. */
export type StreamChunkOf<R extends StreamingRoute> = z.output<R['metadata']['streamChunk']>;

/** The request body of a streaming route; `stream` is set by the client. */
export type StreamBodyOf<R extends StreamingRoute> = Omit<z.input<R['body']>, 'stream'>;

export interface StreamOptions {
  /** Aborting it stops the request and the iteration. */
  signal?: AbortSignal | undefined;
}

/**
 * A streamed request failed: the gateway answered with an error status before the stream,
 * or sent an error event inside it (docs/errors.md). `status` is 200 for the latter.
 */
export class GatewayStreamError extends Error {
  constructor(
    readonly status: number,
    readonly error: ErrorBodyShape['error'],
  ) {
    super(error.message);
    this.name = 'GatewayStreamError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function toErrorBody(status: number, value: unknown, fallback: string): ErrorBodyShape['error'] {
  const error = isRecord(value) && isRecord(value.error) ? value.error : {};
  return {
    message: typeof error.message === 'string' ? error.message : fallback,
    type: typeof error.type === 'string' ? error.type : status >= 500 || status === 200 ? 'server_error' : 'invalid_request_error',
    param: typeof error.param === 'string' ? error.param : null,
    code: typeof error.code === 'string' ? error.code : null,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function requestHeaders(options: GatewayClientOptions): Record<string, string> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return headers;
}

/**
 * Sends `body` with `stream: true` to a streaming route and yields its events, each checked
 * against the route's event schema, until `data: [DONE]` or the end of the body.
 */
export async function* streamRoute<R extends StreamingRoute>(
  options: GatewayClientOptions,
  route: R,
  body: StreamBodyOf<R>,
  streamOptions: StreamOptions = {},
): AsyncGenerator<StreamChunkOf<R>> {
  const response = await fetch(`${options.baseUrl.replace(/\/+$/, '')}${route.path}`, {
    method: 'POST',
    headers: { ...requestHeaders(options), 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ ...body, stream: true }),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(streamOptions.signal ? { signal: streamOptions.signal } : {}),
  });
  if (response.status !== 200 || !response.body) {
    const text = await response.text();
    throw new GatewayStreamError(response.status, toErrorBody(response.status, parseJson(text), `HTTP ${response.status}`));
  }
  const schema: z.ZodTypeAny = route.metadata.streamChunk;
  for await (const event of readEvents(response.body)) {
    if (event.data === '[DONE]') return;
    const value = parseJson(event.data);
    const chunk = schema.safeParse(value);
    if (chunk.success) {
      yield chunk.data as StreamChunkOf<R>;
      continue;
    }
    if (isRecord(value) && 'error' in value) throw new GatewayStreamError(200, toErrorBody(200, value, 'The stream failed.'));
    throw new GatewayStreamError(
      200,
      toErrorBody(200, undefined, `An event did not match the route's event schema: ${event.data.slice(0, 200)}`),
    );
  }
}

function clientArguments(options: GatewayClientOptions) {
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: requestHeaders(options),
    throwOnUnknownStatus: false,
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}

/** The streaming calls the client adds to the contract's routes. */
export interface GatewayStreams {
  /** Streams any route whose contract entry has `metadata.streamChunk`. */
  stream<R extends StreamingRoute>(route: R, body: StreamBodyOf<R>, streamOptions?: StreamOptions): AsyncGenerator<StreamChunkOf<R>>;
  /** POST /v1/chat/completions with `stream: true`: the `chat.completion.chunk` events. */
  streamChatCompletion(
    body: StreamBodyOf<Contract['chat']['create']>,
    streamOptions?: StreamOptions,
  ): AsyncGenerator<StreamChunkOf<Contract['chat']['create']>>;
}

/**
 * The client's type, named so that its declaration refers to the contract's route types instead
 * of spelling out every route (docs/client-and-openapi.md, "Declarations").
 */
export type GatewayClient = InitClientReturn<Contract, ReturnType<typeof clientArguments>> & GatewayStreams;

/**
 * The typed client for TypeScript consumers: every route of the contract as a typed call
 * returning `{ status, body, headers }`, and `stream(route, body)` / `streamChatCompletion(body)`
 * for streamed replies as typed events (docs/client-and-openapi.md).
 */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const calls = initClient(contract, clientArguments(options));
  return {
    ...calls,
    stream: (route, body, streamOptions) => streamRoute(options, route, body, streamOptions),
    streamChatCompletion: (body, streamOptions) => streamRoute(options, contract.chat.create, body, streamOptions),
  };
}
