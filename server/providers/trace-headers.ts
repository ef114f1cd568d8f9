import type { CallOptions, HttpRequest } from './types';

/**
 * docs/tracing.md: an upstream attempt's trace context (`traceparent`, and `tracestate` when
 * the trace has one), sent with each HTTP request of the attempt. Absent while traces are off.
 */
export type TraceHeaders = Readonly<Record<string, string>>;

/** The request with the attempt's trace headers; the request itself while traces are off. */
export function withTraceHeaders(request: HttpRequest, trace: TraceHeaders | undefined): HttpRequest {
  return trace === undefined ? request : { ...request, headers: { ...request.headers, ...trace } };
}

/** An attempt's call options: the call's, with the attempt's trace headers while traces are on. */
export function withAttemptTrace<Options extends CallOptions>(options: Options, trace: TraceHeaders | undefined): Options {
  return trace === undefined ? options : { ...options, traceHeaders: trace };
}
