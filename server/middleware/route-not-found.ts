import type { NextFunction, Request, Response } from 'express';
import { invalidRequest, notFound } from '../errors/gateway-error';

export interface KnownRoute {
  method: string;
  path: string;
}

/**
 * The last handler: a known path with the wrong method is 405 with `Allow`, anything else
 * 404 `route_not_found` (docs/errors.md), in the envelope, never Express's HTML page.
 */
export function routeNotFound(routes: KnownRoute[]) {
  const patterns = routes.map((route) => ({ method: route.method, pattern: toPattern(route.path) }));
  return function routeNotFoundMiddleware(request: Request, _response: Response, next: NextFunction): void {
    const allowed = patterns.filter((entry) => entry.pattern.test(request.path)).map((entry) => entry.method);
    if (allowed.length > 0) {
      const allow = [...new Set(allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed)].join(', ');
      const error = invalidRequest(
        'method_not_allowed',
        `Method ${request.method} is not allowed on ${request.path}; allowed: ${allow}.`,
        null,
        405,
      );
      error.headers.allow = allow;
      return next(error);
    }
    next(notFound('route_not_found', `Unknown route: ${request.method} ${request.path}.`));
  };
}

function toPattern(path: string): RegExp {
  const escaped = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}
