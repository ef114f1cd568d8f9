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
  /** The app's response prototype (Express's `app.response`): `x-gateway-overhead-ms` is set from its writeHead. */
  responsePrototype: Response;
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
  // One hook on the app's response prototype and one shared 'close' listener, rather than a
  // wrapper and closures per request (they were among a request's largest allocations).
  const writeHead = options.responsePrototype.writeHead;
  options.responsePrototype.writeHead = function writeHeadWithOverhead(this: Response) {
    const timing = this.locals?.timing as RequestTiming | undefined;
    if (timing && timing.overheadMs === null && !this.headersSent) {
      timing.overheadMs = Math.max(0, monotonicNow() - timing.startedAt - timing.upstreamMs);
      this.setHeader(OVERHEAD_HEADER, timing.overheadMs.toFixed(2));
    }
    return Reflect.apply(writeHead, this, arguments) as Response;
  } as Response['writeHead'];

  function onClose(this: Response): void {
    const response = this;
    const timing = response.locals.timing as RequestTiming;
    const totalMs = monotonicNow() - timing.startedAt;
    const outcome = response.locals.usageOutcome as UsageOutcome | undefined;
    // The common case: usage is already known when the response closes.
    if (!outcome || outcome.settled) return report(response.req, response, timing, totalMs);
    // Tokens of a stream cut short are known only once the upstream call has unwound.
    let reported = false;
    const once = () => {
      if (reported) return;
      reported = true;
      clearTimeout(timer);
      report(response.req, response, timing, totalMs);
    };
    const timer = setTimeout(once, USAGE_WAIT_MS);
    timer.unref();
    outcome.onSettled = once;
  }

  return function accessLogMiddleware(_request: Request, response: Response, next: NextFunction): void {
    startTiming(response);
    // 'close' is emitted once per response.
    response.on('close', onClose);
    next();
  };

  function report(request: Request, response: Response, timing: RequestTiming, totalMs: number): void {
    const { overheadMs } = timing;
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
          // /v1/responses translated: the hosted tools left out (docs/openai-responses.md).
          droppedTools: response.locals.droppedTools as string | undefined,
          ip: clientIp(request),
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

/**
 * `request.ip` without its cost when no proxy is trusted (the default): Express parses the
 * X-Forwarded-For header on every read of `ip`, only to answer the socket's address then.
 */
function clientIp(request: Request): string | undefined {
  return request.app.get('trust proxy') === false ? request.socket.remoteAddress : request.ip;
}

const round = (ms: number): number => Math.round(ms * 100) / 100;

const stringOrEmpty = (value: unknown): string => (typeof value === 'string' ? value : '');
