import type { Logger } from 'pino';
import { writeInfoLine } from '../logging/logger';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { monotonicNow } from '../metrics/request-timing';
import type { RequestContext } from './request-context';

/** What the access log needs of a finished response beside its context. */
export interface FinishedResponse {
  method: string;
  /** The path without the query string (never logged: it may carry anything). */
  path: string;
  /** The metrics' `route` label: a contract path pattern, never a raw path. */
  route: string;
  status: number;
  ip: string | undefined;
  /** The response did not finish (the client went away, or the connection was cut). */
  aborted: boolean;
}

/** A stream whose client went away may record its usage a little after the response closed. */
const USAGE_WAIT_MS = 10_000;

/**
 * The access-log and metrics stage, for the model pipeline and the Express routes alike:
 * one structured line and the request metrics per request, once the response is done:
 * request id, route, status, latencies (total, gateway overhead, upstream), key id (never the
 * key), account, model, provider, tokens. Never headers, query strings or bodies: keys and
 * prompts are not logged.
 */
export class AccessReport {
  constructor(
    private readonly logger: Logger,
    private readonly metrics: GatewayMetrics,
  ) {}

  /**
   * Called when the response closed; waits for the usage of a stream cut short. `then` runs
   * after the line is written, with the usage known (the model pipeline's request log).
   */
  closed(context: RequestContext, response: FinishedResponse, then?: (totalMs: number) => void): void {
    const totalMs = monotonicNow() - context.startedAt;
    const outcome = context.usageOutcome;
    // The common case: usage is already known when the response closes.
    if (outcome === undefined || outcome.settled) {
      this.write(context, response, totalMs);
      then?.(totalMs);
      return;
    }
    // Tokens of a stream cut short are known only once the upstream call has unwound.
    let reported = false;
    const once = () => {
      if (reported) return;
      reported = true;
      clearTimeout(timer);
      this.write(context, response, totalMs);
      then?.(totalMs);
    };
    const timer = setTimeout(once, USAGE_WAIT_MS);
    timer.unref();
    outcome.onSettled = once;
  }

  private write(context: RequestContext, response: FinishedResponse, totalMs: number): void {
    const { overheadMs, principal } = context;
    const { route, method, status } = response;
    try {
      const statusText = String(status);
      const model = context.model ?? '';
      const provider = context.provider ?? '';
      this.metrics.requests.inc({ route, method, status: statusText, model, provider });
      this.metrics.requestDuration.observe({ route, method, status_class: `${statusText[0] ?? '0'}xx` }, totalMs / 1000);
      if (overheadMs !== null) this.metrics.overhead.observe({ route }, overheadMs / 1000);
      if (status === 429) this.metrics.rateLimitRejections.inc({ route, limit: context.rateLimitExceeded || 'unknown' });
      writeInfoLine(
        this.logger,
        {
          requestId: context.requestId || undefined,
          method,
          route,
          path: response.path,
          status,
          latencyMs: round(totalMs),
          overheadMs: overheadMs === null ? undefined : round(overheadMs),
          upstreamMs: context.upstreamMs > 0 ? round(context.upstreamMs) : undefined,
          keyId: principal?.kind === 'api-key' ? principal.key.id : undefined,
          usageKeyId: principal?.kind === 'usage-key' ? principal.key.id : undefined,
          accountId: principal?.kind === 'api-key' || principal?.kind === 'usage-key' ? principal.key.accountId : undefined,
          admin: principal?.kind === 'admin' || undefined,
          model: model || undefined,
          provider: provider || undefined,
          stream: context.stream || undefined,
          promptTokens: context.promptTokens,
          completionTokens: context.completionTokens,
          droppedTools: context.droppedTools,
          ip: response.ip,
          aborted: response.aborted || undefined,
        },
        'request',
      );
    } catch (error) {
      // Observability must never break a request; a failing logger or metric is reported once here.
      this.logger.warn({ err: error }, 'access log failed');
    }
  }
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
