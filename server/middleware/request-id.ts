import type { NextFunction, Request, Response } from 'express';

const SAFE_REQUEST_ID = /^[\w.:@-]{1,128}$/;

/**
 * docs/errors.md: every response carries `x-request-id`, echoed when the client sent a
 * sane one (anything else is replaced, so logs cannot be injected through it).
 */
export function requestId(generate: () => string) {
  return function requestIdMiddleware(request: Request, response: Response, next: NextFunction): void {
    const sent = request.headers['x-request-id'];
    const id = typeof sent === 'string' && SAFE_REQUEST_ID.test(sent) ? sent : generate();
    response.locals.requestId = id;
    response.setHeader('x-request-id', id);
    next();
  };
}
