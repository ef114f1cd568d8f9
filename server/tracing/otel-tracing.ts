import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as wait } from 'node:timers/promises';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Context, Sampler, Span, TextMapPropagator, Tracer } from '@opentelemetry/api';
import type * as Sdk from '@opentelemetry/sdk-trace';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../contract';
import type { TracingSettings } from '../config/tracing-section';
import { UpstreamError } from '../errors/gateway-error';
import type { RequestContext } from '../pipeline/request-context';
import type { TraceHeaders } from '../providers/trace-headers';
import { femtoToUsdText } from '../usage/cost';
import { inputContent, outputContent, type ContentMessage } from './gen-ai-content';
import { AttemptSpanShapes, requestParameterAttributes, type AttemptSpanShape } from './gen-ai-attributes';
import type { AdmittedRequest, ClosedTrace, RequestTrace, TracedAttempt, Tracing } from './request-trace';

type Api = typeof OpenTelemetryApi;

/** docs/tracing.md: how long a stopping gateway waits at most for its last spans to be exported. */
const SHUTDOWN_WAIT_MS = 2_000;
/**
 * docs/tracing.md, "What traces cost": spans go out in batches of 64, or after at most a second.
 * Batches of the SDK's default size (512) keep the spans alive long enough for V8 to move them
 * to the old generation under load, where collecting them costs several times their recording
 * (docs/performance.md).
 */
export const EXPORT_BATCH_SIZE = 64;
const EXPORT_DELAY_MS = 1_000;
/** The spans waiting for their export at most (the SDK's default); more are dropped. */
export const EXPORT_QUEUE_SIZE = 2_048;
/**
 * docs/tracing.md: the exports under way at once at most. A stopping gateway hands the exporter
 * every batch of its queue at once, while one may still be under way: the exporter's default
 * (30) would refuse some of them and lose their spans.
 */
const EXPORTS_AT_ONCE = Math.ceil(EXPORT_QUEUE_SIZE / EXPORT_BATCH_SIZE) + 1;

/** What every request's trace shares: the SDK's tracer, the W3C propagator, the attempts' span shapes. */
interface TraceTools {
  api: Api;
  tracer: Tracer;
  propagator: TextMapPropagator;
  captureContent: boolean;
  shapes: AttemptSpanShapes;
  /** The server span's name before the model is known, per route (`POST /v1/…`). */
  routeNames: Map<string, string>;
}

/**
 * docs/tracing.md: the OpenTelemetry SDK (a tracer provider of this gateway's own, not the
 * process-wide one; spans batched to the OTLP/HTTP exporter), loaded only here and only when
 * traces are on.
 */
export async function createOtelTracing(settings: TracingSettings, version: string): Promise<Tracing> {
  const [api, core, resources, sdk, otlp] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }),
    sampler: new sdk.ParentBasedSampler({ root: rootSampler(sdk, settings.sampleRatio) }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new otlp.OTLPTraceExporter({ url: settings.url, headers: settings.headers, concurrencyLimit: EXPORTS_AT_ONCE }),
        maxExportBatchSize: EXPORT_BATCH_SIZE,
        maxQueueSize: EXPORT_QUEUE_SIZE,
        scheduledDelayMillis: EXPORT_DELAY_MS,
      }),
    ],
  });
  const tools: TraceTools = {
    api,
    tracer: provider.getTracer('model-gateway', version),
    propagator: new core.W3CTraceContextPropagator(),
    captureContent: settings.captureMessageContent,
    shapes: new AttemptSpanShapes(),
    routeNames: new Map(),
  };
  return {
    startRequest: (context, headers) => new OtelRequestTrace(tools, context, headers),
    flush: () => provider.forceFlush(),
    // A collector that is down would hold a stopping gateway through the exporter's retries (~10 s).
    shutdown: () => Promise.race([provider.shutdown(), wait(SHUTDOWN_WAIT_MS, undefined, { ref: false })]),
  };
}

/** Every new trace, none, or a share decided by the trace id (the ratio sampler hashes each id). */
function rootSampler(sdk: typeof Sdk, ratio: number): Sampler {
  if (ratio >= 1) return new sdk.AlwaysOnSampler();
  if (ratio <= 0) return new sdk.AlwaysOffSampler();
  return new sdk.TraceIdRatioBasedSampler(ratio);
}

/** An attempt's client span, with what its end needs. */
interface AttemptSpan {
  span: Span;
  shape: AttemptSpanShape;
}

/**
 * One model request's spans: the server span, and a client span per upstream attempt under it.
 * docs/tracing.md, "What traces cost": the server span's attributes are gathered as the request
 * goes and set in one call at its end; nothing is gathered for a span that is not sampled.
 */
class OtelRequestTrace implements RequestTrace {
  private readonly span: Span;
  private readonly recording: boolean;
  /** The context whose span is the server span: the attempts' parent. */
  private readonly parent: Context;
  /** The server span's attributes so far (set on the span at the end). */
  private readonly attributes: Attributes = {};
  private name: string | null = null;
  private responseId: string | null = null;
  private readonly finishReasons: string[] = [];
  /** Streamed attempts' spans: open until the request closes. */
  private readonly streaming: AttemptSpan[] = [];
  /** A stream's reply text by choice, while content is captured. */
  private streamedText: string[] | null = null;

  constructor(
    private readonly tools: TraceTools,
    context: RequestContext,
    headers: IncomingHttpHeaders,
  ) {
    const { api } = tools;
    const remote =
      headers.traceparent === undefined ? api.ROOT_CONTEXT : tools.propagator.extract(api.ROOT_CONTEXT, headers, api.defaultTextMapGetter);
    this.span = tools.tracer.startSpan(routeName(tools.routeNames, context.route ?? ''), { kind: api.SpanKind.SERVER }, remote);
    this.recording = this.span.isRecording();
    this.parent = api.trace.setSpan(api.ROOT_CONTEXT, this.span);
  }

  admitted(request: AdmittedRequest): void {
    if (!this.recording) return;
    const shape = this.tools.shapes.ofModel(request.model, request.providerType);
    this.name = shape.name;
    const { attributes } = this;
    attributes['gen_ai.operation.name'] = shape.operation;
    attributes['gen_ai.provider.name'] = shape.providerName;
    attributes['gen_ai.request.model'] = request.model.id;
    attributes['gateway.stream'] = request.stream;
    requestParameterAttributes(attributes, request.body, request.maxTokens);
  }

  chatRequest(body: ChatCompletionRequest): void {
    if (!this.recording || !this.tools.captureContent) return;
    const { system, messages } = inputContent(body);
    if (system.length > 0) this.attributes['gen_ai.system_instructions'] = JSON.stringify(system);
    this.attributes['gen_ai.input.messages'] = JSON.stringify(messages);
  }

  async attempt<T>(attempt: TracedAttempt, stream: boolean, run: (traceHeaders: TraceHeaders) => Promise<T>): Promise<T> {
    const { api, tracer, propagator } = this.tools;
    const shape = this.tools.shapes.ofAttempt(attempt);
    const span = tracer.startSpan(shape.name, { kind: api.SpanKind.CLIENT }, this.parent);
    const headers: Record<string, string> = {};
    propagator.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), headers, api.defaultTextMapSetter);
    try {
      const value = await run(headers);
      if (stream) this.streaming.push({ span, shape });
      else span.setAttributes(shape.answered).end();
      return value;
    } catch (error) {
      if (span.isRecording()) {
        span.setAttributes(shape.attributes);
        span.setAttributes(errorAttributes(error));
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      span.end();
      throw error;
    }
  }

  completed(completion: ChatCompletion): void {
    if (!this.recording) return;
    this.responseId = completion.id;
    for (const choice of completion.choices) this.finishReasons.push(choice.finish_reason);
    if (this.tools.captureContent) this.attributes['gen_ai.output.messages'] = JSON.stringify(outputContent(completion));
  }

  chunks(batch: readonly ChatCompletionChunk[]): void {
    if (!this.recording) return;
    for (const chunk of batch) {
      this.responseId ??= chunk.id;
      for (const choice of chunk.choices) {
        if (choice.finish_reason) this.finishReasons[choice.index] = choice.finish_reason;
        if (this.tools.captureContent && choice.delta.content) {
          const text = (this.streamedText ??= []);
          text[choice.index] = (text[choice.index] ?? '') + choice.delta.content;
        }
      }
    }
  }

  passedThrough(finishReason: string): void {
    if (this.recording) this.finishReasons.push(finishReason);
  }

  end(context: RequestContext, closed: ClosedTrace): void {
    if (!this.recording) {
      for (const { span } of this.streaming) span.end();
      this.span.end();
      return;
    }
    const { usage, principal } = context;
    const { attributes } = this;
    attributes['http.request.method'] = 'POST';
    attributes['http.route'] = context.route ?? '';
    attributes['http.response.status_code'] = closed.status;
    attributes['gateway.request.id'] = context.requestId;
    attributes['gateway.upstream_attempts'] = context.upstreamAttempts;
    if (principal?.kind === 'api-key') {
      attributes['gateway.key.id'] = principal.key.id;
      attributes['gateway.account.id'] = principal.key.accountId;
    }
    if (this.responseId !== null) attributes['gen_ai.response.id'] = this.responseId;
    const finishReasons = this.finishReasons.filter((reason) => reason !== undefined);
    if (finishReasons.length > 0) attributes['gen_ai.response.finish_reasons'] = finishReasons;
    if (usage !== null) {
      attributes['gen_ai.response.model'] = usage.model;
      attributes['gateway.deployment'] = usage.provider;
      attributes['gen_ai.usage.input_tokens'] = usage.promptTokens;
      attributes['gen_ai.usage.output_tokens'] = usage.completionTokens;
      if (usage.cachedTokens > 0) attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cachedTokens;
      const cacheWrites = usage.cacheWriteTokens + usage.cacheWrite1hTokens;
      if (cacheWrites > 0) attributes['gen_ai.usage.cache_creation.input_tokens'] = cacheWrites;
      if (usage.reasoningTokens > 0) attributes['gateway.usage.reasoning_tokens'] = usage.reasoningTokens;
      attributes['gateway.cost_usd'] = Number(femtoToUsdText(usage.costFemtoUsd));
      attributes['gateway.usage.estimated'] = usage.estimated;
    }
    if (this.streamedText !== null) attributes['gen_ai.output.messages'] = JSON.stringify(this.streamedOutput());
    const status = usage?.status ?? (closed.aborted ? 499 : closed.status);
    const errorType = usage?.errorCode ?? context.errorCode ?? (closed.aborted ? 'client_closed_request' : null);
    if (errorType !== null && status >= 400) attributes['error.type'] = errorType;
    if (this.name !== null) this.span.updateName(this.name);
    this.span.setAttributes(attributes);
    if (status >= 500) this.span.setStatus({ code: this.tools.api.SpanStatusCode.ERROR });
    for (const { span, shape } of this.streaming) {
      const streamed: Attributes = {};
      if (usage !== null) {
        streamed['gen_ai.usage.input_tokens'] = usage.promptTokens;
        streamed['gen_ai.usage.output_tokens'] = usage.completionTokens;
      }
      if (finishReasons.length > 0) streamed['gen_ai.response.finish_reasons'] = finishReasons;
      if (errorType !== null && status >= 400) streamed['error.type'] = errorType;
      span.setAttributes(shape.answered).setAttributes(streamed).end();
    }
    this.span.end();
  }

  private streamedOutput(): ContentMessage[] {
    const text = this.streamedText ?? [];
    return Array.from({ length: Math.max(text.length, this.finishReasons.length) }, (_, index) => {
      const content = text[index];
      const reason = this.finishReasons[index];
      return {
        role: 'assistant',
        parts: content === undefined ? [] : [{ type: 'text', content }],
        ...(reason === undefined ? {} : { finish_reason: reason }),
      };
    });
  }
}

/** `POST {route}`, made once per route. */
function routeName(names: Map<string, string>, route: string): string {
  let name = names.get(route);
  if (name === undefined) {
    name = `POST ${route}`;
    names.set(route, name);
  }
  return name;
}

/** A failed attempt: `error.type` (the upstream error's kind, or the error's name) and the upstream's status. */
function errorAttributes(error: unknown): Attributes {
  if (error instanceof UpstreamError) {
    return error.upstreamStatus === null
      ? { 'error.type': error.kind }
      : { 'error.type': error.kind, 'http.response.status_code': error.upstreamStatus };
  }
  return { 'error.type': error instanceof Error ? error.name : 'error' };
}
