import type { IncomingHttpHeaders } from 'node:http';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../contract';
import type { ModelConfig } from '../config/load-config';
import type { RequestContext } from '../pipeline/request-context';
import type { TraceHeaders } from '../providers/trace-headers';
import type { ShapedAttempt } from './gen-ai-attributes';

/**
 * docs/tracing.md: what the request pipeline asks of tracing. Only types here: the
 * OpenTelemetry SDK behind them (otel-tracing.ts) is loaded when traces are on, so a gateway
 * with traces off loads none of it and runs one `null` check per stage.
 */

/** The gateway's tracing: one trace per model request, started at its first stage. */
export interface Tracing {
  /** The request's server span, continuing the client's `traceparent` when it sent one. */
  startRequest(context: RequestContext, headers: IncomingHttpHeaders): RequestTrace;
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
  /** Exports the spans still waiting, then stops (the gateway's close). */
  shutdown(): Promise<void>;
}

/** What admission knows of a request (completions/admission.ts). */
export interface AdmittedRequest {
  kind: 'chat' | 'embeddings';
  model: ModelConfig;
  /** The provider type of the model's upstream (`openai`, `anthropic`, …). */
  providerType: string;
  stream: boolean;
  /** The request's bound on the reply, when it set one. */
  maxTokens: number | null | undefined;
  /** The route's body: its sampling parameters become span attributes. */
  body: unknown;
}

/** One attempt of the retry and fallback loop: the catalogue model, the deployment called and its provider type. */
export type TracedAttempt = ShapedAttempt;

/** What closed the request (model-pipeline.ts). */
export interface ClosedTrace {
  status: number;
  aborted: boolean;
}

/** The trace of one model request: its server span and a client span per upstream attempt. */
export interface RequestTrace {
  /** The model, provider and request parameters, once admission resolved them. */
  admitted(request: AdmittedRequest): void;
  /** A chat request's messages: kept only when content capture is on. */
  chatRequest(body: ChatCompletionRequest): void;
  /**
   * Runs one upstream attempt inside its client span, given the span's `traceparent` for its
   * HTTP requests (CallOptions.traceHeaders). A stream's span lasts until the request closes.
   */
  attempt<T>(attempt: TracedAttempt, stream: boolean, run: (traceHeaders: TraceHeaders) => Promise<T>): Promise<T>;
  /** A non-streamed chat reply: its id, finish reasons and (content capture on) its messages. */
  completed(completion: ChatCompletion): void;
  /** One read of a streamed chat reply. */
  chunks(batch: readonly ChatCompletionChunk[]): void;
  /** A passed-through reply's stop reason, in the upstream's words (completions/pass-through.ts). */
  passedThrough(finishReason: string): void;
  /** Ends the spans with what the context gathered: tokens, cost, status. */
  end(context: RequestContext, closed: ClosedTrace): void;
}
