import type { NextFunction, Request, Response } from 'express';
import type { AccessReport } from '../pipeline/access-report';

/**
 * The access-log and metrics stage of the routes Express serves (pipeline/access-report.ts
 * writes the line): registered once per response, reported on 'close' (emitted once).
 */
export function accessLog(report: AccessReport) {
  function onClose(this: Response): void {
    const request = this.req;
    const path = originalPath(request);
    report.closed(this.locals.context, {
      method: request.method,
      path,
      route: routeLabel(request, path, this.statusCode),
      status: this.statusCode,
      ip: clientIp(request),
      aborted: !this.writableFinished,
    });
  }
  return function accessLogMiddleware(_request: Request, response: Response, next: NextFunction): void {
    response.on('close', onClose);
    next();
  };
}

/**
 * The metrics' `route` label: the contract's path pattern (`/v1/admin/keys/:keyId`), so raw
 * paths never multiply label values. Requests no route matched are `unmatched`; static
 * files mounted outside the contract are labelled by their mount segment (only paths
 * something answered with success, so an attacker cannot invent label values).
 */
export function routeLabel(request: Request, path: string, status: number): string {
  const contractRoute = (request as Request & { tsRestRoute?: { path?: string } }).tsRestRoute?.path;
  if (contractRoute) return contractRoute;
  const expressRoute = (request.route as { path?: unknown } | undefined)?.path;
  if (typeof expressRoute === 'string') return expressRoute;
  // Refused before routing (unknown path, unreadable body): the path is the client's choice.
  if (status >= 400) return 'unmatched';
  const segment = /^\/[A-Za-z0-9_-]{1,32}/.exec(path)?.[0];
  return segment ? `${segment}/*` : 'unmatched';
}

/**
 * The path the client asked for, without the query string: `request.path` is relative to the
 * mount point once a mounted router (the dashboard's files under /dashboard) has taken the request.
 */
function originalPath(request: Request): string {
  const url = request.originalUrl;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * `request.ip` without its cost when no proxy is trusted (the default): Express parses the
 * X-Forwarded-For header on every read of `ip`, only to answer the socket's address then.
 */
function clientIp(request: Request): string | undefined {
  return request.app.get('trust proxy') === false ? request.socket.remoteAddress : request.ip;
}
