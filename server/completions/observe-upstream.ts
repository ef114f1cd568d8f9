import { UpstreamError } from '../errors/gateway-error';
import { isAbortError } from '../providers/transport-errors';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { monotonicNow } from '../metrics/request-timing';
import type { RequestContext } from '../pipeline/request-context';
import type { TraceHeaders } from '../providers/trace-headers';
import type { Attempt } from './resolve-model';

/** The `outcome` label of one upstream call: `ok`, the UpstreamError kind, `aborted` or `error`. */
export function upstreamOutcome(error: unknown): string {
  if (error instanceof UpstreamError) return error.kind;
  if (isAbortError(error)) return 'aborted';
  return 'error';
}

/**
 * Wraps one attempt of the retry/fallback loop so that each upstream call (retries and
 * fallbacks each count) lands in `gateway_upstream_duration_seconds` under the catalogue
 * model and provider that were actually called, and, while traces are on, in a client span
 * of the request's trace whose `traceparent` `run` sends upstream (CallOptions.traceHeaders,
 * docs/tracing.md).
 */
export function observedAttempt<T, A extends Attempt = Attempt>(
  metrics: GatewayMetrics,
  context: Pick<RequestContext, 'trace'>,
  stream: boolean,
  run: (attempt: A, traceHeaders?: TraceHeaders) => Promise<T>,
): (attempt: A) => Promise<T> {
  return async (attempt) => {
    const startedAt = monotonicNow();
    let outcome = 'ok';
    const trace = context.trace;
    try {
      return await (trace === null ? run(attempt) : trace.attempt(attempt, stream, (headers) => run(attempt, headers)));
    } catch (error) {
      outcome = upstreamOutcome(error);
      throw error;
    } finally {
      metrics.upstreamDuration.observe(
        {
          provider: attempt.deployment.provider,
          model: attempt.model.id,
          deployment: attempt.deployment.id,
          stream: stream ? 'true' : 'false',
          outcome,
        },
        (monotonicNow() - startedAt) / 1000,
      );
    }
  };
}
