import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { writeInfoLine } from '../logging/logger';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { monotonicNow, startTiming, type RequestTiming } from '../metrics/request-timing';
import type { Principal } from './authenticate';

/** Response header with the gateway's own time in ms (total until the headers minus upstream waiting). */
export const OVERHEAD_HEADER = 'x-gateway-overhead-ms';

/** Set by the meter of a model call: `settled` once its usage (tokens) is known. */
export interface UsageOutcome {
  settled: boolean;
  /** Called when it settles, if that happens after the response closed. */
  onSettled: (() => void) | null;
}

export interface AccessLogOptions {
  logger: Logger;
  metrics: GatewayMetrics;
}

/** A stream whose client went away may record its usage a little after the response closed. */
const USAGE_WAIT_MS = 10_000;

/**
 * One structured line and the request metrics per request, once the response is done:
 * request id, route, status, latencies (total, gateway overhead, upstream), key id (never the
 * key), account, model, provider, tokens. Never headers, query strings or bodies: keys and
 * prompts are not logged. Also sets `x-gateway-overhead-ms` when the headers go out: for a
 * stream that is the time to its first byte minus the upstream's time to its headers.
 */
export function accessLog(options: AccessLogOptions) {
  const { logger, metrics } = options;
  return function accessLogMiddleware(request: Request, response: Response, next: NextFunction): void {
    const timing = startTiming(response);
    let overheadMs: number | null = null;

    const writeHead = response.writeHead;
    response.writeHead = function writeHeadWithOverhead(this: Response, ...args: unknown[]) {
      if (overheadMs === null && !this.headersSent) {
        overheadMs = Math.max(0, monotonicNow() - timing.startedAt - timing.upstreamMs);
        this.setHeader(OVERHEAD_HEADER, overheadMs.toFixed(2));
      }
      return (writeHead as (...values: unknown[]) => Response).apply(this, args);
    } as Response['writeHead'];

    response.once('close', () => {
      const totalMs = monotonicNow() - timing.startedAt;
      const outcome = response.locals.usageOutcome as UsageOutcome | undefined;
      const done = () => report(request, response, timing, totalMs, overheadMs);
      // The common case: usage is already known when the response closes.
      if (!outcome || outcome.settled) return done();
      // Tokens of a stream cut short are known only once the upstream call has unwound.
      let reported = false;
      const once = () => {
        if (reported) return;
        reported = true;
        clearTimeout(timer);
        done();
      };
      const timer = setTimeout(once, USAGE_WAIT_MS);
      timer.unref();
      outcome.onSettled = once;
    });
    next();
  };

  function report(request: Request, response: Response, timing: RequestTiming, totalMs: number, overheadMs: number | null): void {
    try {
      const route = routeLabel(request, response.statusCode);
      const status = String(response.statusCode);
      const model = stringOrEmpty(response.locals.model);
      const provider = stringOrEmpty(response.locals.provider);
      metrics.requests.inc({ route, method: request.method, status, model, provider });
      metrics.requestDuration.observe({ route, method: request.method, status_class: `${status[0] ?? '0'}xx` }, totalMs / 1000);
      if (overheadMs !== null) metrics.overhead.observe({ route }, overheadMs / 1000);
      if (response.statusCode === 429) metrics.rateLimitRejections.inc({ route, limit: stringOrEmpty(response.locals.rateLimitExceeded) || 'unknown' });
      const principal = response.locals.principal as Principal | undefined;
      writeInfoLine(
        logger,
        {
          requestId: response.locals.requestId as string | undefined,
          method: request.method,
          route,
          path: request.path,
          status: response.statusCode,
          latencyMs: round(totalMs),
          overheadMs: overheadMs === null ? undefined : round(overheadMs),
          upstreamMs: timing.upstreamMs > 0 ? round(timing.upstreamMs) : undefined,
          keyId: principal?.kind === 'api-key' ? principal.key.id : undefined,
          usageKeyId: principal?.kind === 'usage-key' ? principal.key.id : undefined,
          accountId: principal?.kind === 'api-key' || principal?.kind === 'usage-key' ? principal.key.accountId : undefined,
          admin: principal?.kind === 'admin' || undefined,
          model: model || undefined,
          provider: provider || undefined,
          stream: response.locals.stream === true || undefined,
          promptTokens: response.locals.promptTokens as number | undefined,
          completionTokens: response.locals.completionTokens as number | undefined,
          ip: request.ip,
          aborted: !response.writableFinished || undefined,
        },
        'request',
      );
    } catch (error) {
      // Observability must never break a request; a failing logger or metric is reported once here.
      logger.warn({ err: error }, 'access log failed');
    }
  }
}

/**
 * The metrics' `route` label: the contract's path pattern (`/v1/admin/keys/:keyId`), so raw
 * paths never multiply label values. Requests no route matched are `unmatched`; static
 * files mounted outside the contract are labelled by their mount segment (only paths
 * something answered with success, so an attacker cannot invent label values).
 */
export function routeLabel(request: Request, status: number): string {
  const contractRoute = (request as Request & { tsRestRoute?: { path?: string } }).tsRestRoute?.path;
  if (contractRoute) return contractRoute;
  const expressRoute = (request.route as { path?: unknown } | undefined)?.path;
  if (typeof expressRoute === 'string') return expressRoute;
  // Refused before routing (unknown path, unreadable body): the path is the client's choice.
  if (status >= 400) return 'unmatched';
  const segment = /^\/[A-Za-z0-9_-]{1,32}/.exec(request.path)?.[0];
  return segment ? `${segment}/*` : 'unmatched';
}

const round = (ms: number): number => Math.round(ms * 100) / 100;

const stringOrEmpty = (value: unknown): string => (typeof value === 'string' ? value : '');
