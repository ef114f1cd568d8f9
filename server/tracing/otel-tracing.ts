import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as wait } from 'node:timers/promises';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Context, Span, TextMapPropagator, Tracer } from '@opentelemetry/api';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../contract';
import type { TracingSettings } from '../config/tracing-section';
import { UpstreamError } from '../errors/gateway-error';
import type { RequestContext } from '../pipeline/request-context';
import type { TraceHeaders } from '../providers/trace-headers';
import { femtoToUsdText } from '../usage/cost';
import { inputContent, outputContent, type ContentMessage } from './gen-ai-content';
import { providerName, requestParameterAttributes } from './gen-ai-attributes';
import type { AdmittedRequest, ClosedTrace, RequestTrace, TracedAttempt, Tracing } from './request-trace';

type Api = typeof OpenTelemetryApi;

/** docs/tracing.md: how long a stopping gateway waits at most for its last spans to be exported. */
const SHUTDOWN_WAIT_MS = 2_000;

/** What every request's trace shares: the SDK's tracer, the W3C propagator. */
interface TraceTools {
  api: Api;
  tracer: Tracer;
  propagator: TextMapPropagator;
  captureContent: boolean;
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
    sampler: new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(settings.sampleRatio) }),
    spanProcessors: [
      new sdk.BatchSpanProcessor({ exporter: new otlp.OTLPTraceExporter({ url: settings.url, headers: settings.headers }) }),
    ],
  });
  const tools: TraceTools = {
    api,
    tracer: provider.getTracer('model-gateway', version),
    propagator: new core.W3CTraceContextPropagator(),
    captureContent: settings.captureMessageContent,
  };
  return {
    startRequest: (context, headers) => new OtelRequestTrace(tools, context, headers),
    flush: () => provider.forceFlush(),
    // A collector that is down would hold a stopping gateway through the exporter's retries (~10 s).
    shutdown: () => Promise.race([provider.shutdown(), wait(SHUTDOWN_WAIT_MS, undefined, { ref: false })]),
  };
}

/** One model request's spans: the server span, and a client span per upstream attempt under it. */
class OtelRequestTrace implements RequestTrace {
  private readonly span: Span;
  /** The context whose span is the server span: the attempts' parent. */
  private readonly parent: Context;
  private operation = 'chat';
  private responseId: string | null = null;
  private readonly finishReasons: string[] = [];
  /** Streamed attempts' spans: open until the request closes. */
  private readonly streaming: Span[] = [];
  /** A stream's reply text by choice, while content is captured. */
  private streamedText: string[] | null = null;

  constructor(
    private readonly tools: TraceTools,
    context: RequestContext,
    headers: IncomingHttpHeaders,
  ) {
    const { api } = tools;
    const remote = tools.propagator.extract(api.ROOT_CONTEXT, headers, api.defaultTextMapGetter);
    this.span = tools.tracer.startSpan(
      `POST ${context.route ?? ''}`,
      {
        kind: api.SpanKind.SERVER,
        attributes: { 'http.request.method': 'POST', 'http.route': context.route ?? '', 'gateway.request.id': context.requestId },
      },
      remote,
    );
    this.parent = api.trace.setSpan(api.ROOT_CONTEXT, this.span);
  }

  admitted(request: AdmittedRequest): void {
    this.operation = request.kind === 'embeddings' ? 'embeddings' : 'chat';
    this.span.updateName(`${this.operation} ${request.model.id}`);
    this.span.setAttributes({
      'gen_ai.operation.name': this.operation,
      'gen_ai.provider.name': providerName(request.providerType),
      'gen_ai.request.model': request.model.id,
      'gateway.stream': request.stream,
      ...requestParameterAttributes(request.body, request.maxTokens),
    });
  }

  chatRequest(body: ChatCompletionRequest): void {
    if (!this.tools.captureContent) return;
    const { system, messages } = inputContent(body);
    if (system.length > 0) this.span.setAttribute('gen_ai.system_instructions', JSON.stringify(system));
    this.span.setAttribute('gen_ai.input.messages', JSON.stringify(messages));
  }

  async attempt<T>(attempt: TracedAttempt, stream: boolean, run: (traceHeaders: TraceHeaders) => Promise<T>): Promise<T> {
    const { api, tracer, propagator } = this.tools;
    const span = tracer.startSpan(
      `${this.operation} ${attempt.model.upstreamModel}`,
      {
        kind: api.SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': this.operation,
          'gen_ai.provider.name': providerName(attempt.providerType),
          'gen_ai.request.model': attempt.model.upstreamModel,
          'gateway.model': attempt.model.id,
          'gateway.deployment': attempt.model.provider,
        },
      },
      this.parent,
    );
    const headers: Record<string, string> = {};
    propagator.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), headers, api.defaultTextMapSetter);
    try {
      const value = await run(headers);
      span.setAttribute('gen_ai.response.model', attempt.model.upstreamModel);
      if (stream) this.streaming.push(span);
      else span.end();
      return value;
    } catch (error) {
      span.setAttributes(errorAttributes(error));
      span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();
      throw error;
    }
  }

  completed(completion: ChatCompletion): void {
    this.responseId = completion.id;
    for (const choice of completion.choices) this.finishReasons.push(choice.finish_reason);
    if (this.tools.captureContent) this.span.setAttribute('gen_ai.output.messages', JSON.stringify(outputContent(completion)));
  }

  chunks(batch: readonly ChatCompletionChunk[]): void {
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

  end(context: RequestContext, closed: ClosedTrace): void {
    const { usage, principal } = context;
    const attributes: Attributes = { 'http.response.status_code': closed.status, 'gateway.upstream_attempts': context.upstreamAttempts };
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
    this.span.setAttributes(attributes);
    if (status >= 500) this.span.setStatus({ code: this.tools.api.SpanStatusCode.ERROR });
    for (const span of this.streaming) {
      if (usage !== null) {
        span.setAttributes({ 'gen_ai.usage.input_tokens': usage.promptTokens, 'gen_ai.usage.output_tokens': usage.completionTokens });
      }
      if (finishReasons.length > 0) span.setAttribute('gen_ai.response.finish_reasons', finishReasons);
      if (errorType !== null && status >= 400) span.setAttribute('error.type', errorType);
      span.end();
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

/** A failed attempt: `error.type` (the upstream error's kind, or the error's name) and the upstream's status. */
function errorAttributes(error: unknown): Attributes {
  if (error instanceof UpstreamError) {
    return error.upstreamStatus === null
      ? { 'error.type': error.kind }
      : { 'error.type': error.kind, 'http.response.status_code': error.upstreamStatus };
  }
  return { 'error.type': error instanceof Error ? error.name : 'error' };
}
