import type { NextFunction, Request, Response } from 'express';
import { RequestContext } from '../pipeline/request-context';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    /** `response.locals` of the routes Express serves: the same typed context as the model routes'. */
    interface Locals {
      context: RequestContext;
    }
  }
}

const SAFE_REQUEST_ID = /^[\w.:@-]{1,128}$/;

/**
 * docs/errors.md: every response carries `x-request-id`, echoed when the client sent a
 * sane one (anything else is replaced, so logs cannot be injected through it).
 */
export function chooseRequestId(sent: string | string[] | undefined, generate: () => string): string {
  return typeof sent === 'string' && SAFE_REQUEST_ID.test(sent) ? sent : generate();
}

/** The first stage of the routes Express serves: the request's context and its id. */
export function requestId(generate: () => string) {
  return function requestIdMiddleware(request: Request, response: Response, next: NextFunction): void {
    const context = new RequestContext();
    context.requestId = chooseRequestId(request.headers['x-request-id'], generate);
    response.locals.context = context;
    response.setHeader('x-request-id', context.requestId);
    next();
  };
}
