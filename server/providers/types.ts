import type { TraceHeaders } from './trace-headers';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  EmbeddingsRequest,
  EmbeddingsResponse,
  ReasoningEffort,
} from '../../contract';
import type { CallSignal } from './call-signal';

/**
 * The adapter interface every provider implements. Adapters translate one OpenAI-shaped,
 * already-validated request into their provider's wire format and back. They never read
 * `process.env`, import Express or Prisma: everything arrives through `ProviderFactoryOptions`.
 */

/** What an adapter knows about the catalogue model it is called for. */
export interface ModelTarget {
  /** Catalogue id: the `model` of every reply (docs/chat-and-streaming.md). */
  id: string;
  /** The model name sent to the provider (config `upstream_model`, default `id`). */
  upstreamModel: string;
  /** `max_tokens` when the request has none and the provider needs one (Anthropic). */
  defaultMaxTokens: number;
  /** Allowed `dimensions` values for embedding models; undefined = none allowed. */
  dimensions?: number[];
}

/**
 * The usage every route reports and `requestCostFemtoUsd` (server/usage/cost.ts) prices
 * (docs/pricing.md). The totals keep OpenAI's meaning; the breakdown fields are parts of them,
 * absent = 0.
 */
export interface TokenUsage {
  /** Every input token: uncached, read from the prompt cache and written to it. */
  promptTokens: number;
  /** Every output token, reasoning included. */
  completionTokens: number;
  /** Of `promptTokens`, read from the provider's prompt cache. */
  cachedTokens?: number;
  /** Of `promptTokens`, written to the prompt cache with the 5-minute lifetime. */
  cacheWriteTokens?: number;
  /** Of `promptTokens`, written to the prompt cache with the 1-hour lifetime. */
  cacheWrite1hTokens?: number;
  /** Of `completionTokens`, the model's reasoning (thinking) tokens. */
  reasoningTokens?: number;
}

export interface CallOptions {
  /** Aborted when the client goes away or the gateway gives up; adapters pass it to the HTTP call. */
  signal: CallSignal;
  /** Request id of the gateway request, for upstream correlation headers if useful. */
  requestId: string;
  /** The reasoning the request asks for; absent: the provider's default (server/providers/reasoning.ts). */
  reasoning?: ReasoningRequest;
  /** docs/tracing.md: the attempt's `traceparent`, for each of its upstream requests; absent while traces are off. */
  traceHeaders?: TraceHeaders;
}

/** What each HTTP request of an attempt takes of its call: the signal, and the trace headers while traces are on. */
export type RequestOptions = Pick<CallOptions, 'signal' | 'traceHeaders'>;

/**
 * Reasoning (thinking) asked for by a request, in the terms every adapter maps
 * (docs/chat-and-streaming.md, "Reasoning"): an effort, a token budget, or both.
 * Neither: reasoning on, the amount left to the model (Anthropic's `adaptive`).
 */
export interface ReasoningRequest {
  effort?: ReasoningEffort;
  /** Most tokens to reason with (Anthropic's `budget_tokens`), when the client gave a number. */
  budgetTokens?: number;
}

export interface ChatResult {
  completion: ChatCompletion;
  /** Usage as the provider reported it; null when it did not (the caller then estimates). */
  usage: TokenUsage | null;
}

/**
 * A streamed reply. `chunks` yields OpenAI-shaped chunks (the first delta carries
 * `role: 'assistant'`, the last content chunk carries `finish_reason`). When the provider
 * reports usage, the adapter yields one final chunk with `choices: []` and `usage`; the route
 * decides whether the client sees it. Errors after the start are thrown from the iterator.
 * Ending iteration early (return()) must release the upstream connection.
 */
export interface ChatStream {
  chunks: AsyncIterable<ChatCompletionChunk>;
  /**
   * The full usage behind the chunk with `usage`, set by the adapter before it yields that
   * chunk, where OpenAI's usage shape cannot carry all of it (Anthropic's cache writes).
   * Unset: the route reads the chunk's usage and its details.
   */
  usage?: TokenUsage;
  /**
   * The same chunks grouped by upstream read, when the adapter has them that way (the route
   * then writes each group at once: one await and one write per read, not per chunk). Only
   * one of `chunks` and `batches` is read.
   */
  batches?: AsyncIterable<ChatCompletionChunk[]>;
}

export interface EmbeddingsResult {
  /**
   * Float arrays, or base64 strings (little-endian float32, as OpenAI's `encoding_format:
   * "base64"`) where the request asked for base64 and the provider answered so; the route
   * encodes or decodes whichever the client did not ask for.
   */
  response: Omit<EmbeddingsResponse, 'data'> & { data: { object: 'embedding'; index: number; embedding: number[] | string }[] };
  usage: TokenUsage | null;
}

export interface ProviderAdapter {
  readonly type: string;
  /**
   * chat and chatStream return `n` choices when a request asks for several (each with its
   * `index`, streamed ones included; usage counts them all). Absent: the upstream returns one,
   * and a request with `n` other than 1 is refused before any call (docs/chat-and-streaming.md).
   */
  readonly supportsN?: boolean;
  /** Resolves once the provider answered; rejects with an UpstreamError (server/errors) otherwise. */
  chat(request: ChatCompletionRequest, target: ModelTarget, options: CallOptions): Promise<ChatResult>;
  /**
   * Resolves once the upstream answered with a success status and before any chunk is read,
   * so that failures up to that point can be retried or fall back; rejects with an UpstreamError.
   */
  chatStream(request: ChatCompletionRequest, target: ModelTarget, options: CallOptions): Promise<ChatStream>;
  embeddings(request: EmbeddingsRequest, target: ModelTarget, options: CallOptions): Promise<EmbeddingsResult>;
  /**
   * POST /responses to an upstream that serves the OpenAI Responses API: `body` as the client
   * sent it with `model` replaced. Resolves with the 2xx reply, unread, for the route to pass
   * back as it is; rejects with an UpstreamError otherwise. Only the `openai` type has it.
   */
  responses?(body: Record<string, unknown>, target: ModelTarget, options: CallOptions & { stream: boolean }): Promise<HttpResponse>;
  /** Present on adapters whose upstream speaks the Anthropic Messages API: the pass-through of /v1/messages. */
  messages?: NativeMessagesApi;
}

/**
 * The Anthropic Messages API as the upstream serves it (docs/anthropic-messages.md): the
 * client's body with only `model` replaced, its `anthropic-beta` header passed on.
 */
export interface NativeMessagesApi {
  /**
   * Whether the upstream serves the Messages API for this model (a cloud that hosts Claude
   * beside other models); absent: for every model of the provider.
   */
  serves?(target: ModelTarget): boolean;
  /** POST /v1/messages; resolves with the 2xx response unread, rejects with an UpstreamError otherwise. */
  create(body: Record<string, unknown>, target: ModelTarget, options: CallOptions & NativeMessagesHeaders): Promise<HttpResponse>;
  /** POST /v1/messages/count_tokens: the upstream's `input_tokens`. */
  countTokens(body: Record<string, unknown>, target: ModelTarget, options: CallOptions & NativeMessagesHeaders): Promise<number>;
}

export interface NativeMessagesHeaders {
  /** The client's `anthropic-version` and `anthropic-beta` headers, when it sent them. */
  anthropicVersion: string | null;
  anthropicBeta: string | null;
}

/** The HTTP client adapters use; `createHttpClient` (http-client.ts) is the pooled undici one. */
export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
}

export interface HttpRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal?: CallSignal;
  /**
   * The caller reads the whole body (a JSON reply): the client may read it into memory before
   * resolving, which costs less than streaming it. Streams leave this unset.
   */
  buffered?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it arrives; iterate it for streams. */
  body: AsyncIterable<Uint8Array>;
  /** The whole body as text (for JSON replies and error bodies). */
  text(): Promise<string>;
  /** Discard the rest of the body and free the connection. */
  discard(): Promise<void>;
  /**
   * The reader of `body` has all it needs (an event stream's end marker) and is about to stop:
   * the rest of the body is then read in the background and dropped, so that the connection
   * is kept for the next request (destroyed if the body does not end within a few seconds).
   * A reader that stops without this closes the connection.
   */
  finish(): void;
}

export interface ProviderFactoryOptions {
  /** Provider name from the config (`providers.<name>`), used in messages. */
  name: string;
  baseUrl: string;
  /** Provider credential; never put in any message, log or error. */
  apiKey: string;
  http: HttpClient;
  /** Clock (ms) and id generator, injected so replies are reproducible in tests. */
  now: () => number;
  generateId: () => string;
  /** Extra options of the `mock` provider type (latency etc.). */
  options?: Record<string, unknown>;
}

export type ProviderFactory = (options: ProviderFactoryOptions) => ProviderAdapter;
