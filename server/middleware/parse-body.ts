import type { NextFunction, Request, Response } from 'express';
import { createBodyParser, readJsonBody } from '../pipeline/read-body';

/**
 * The body stage for the routes Express serves (the model routes have it in their pipeline):
 * the same reader and errors (pipeline/read-body.ts, docs/errors.md); sets `request.body`.
 */
export function parseBody(limitBytes: number) {
  const fallback = createBodyParser(limitBytes);
  return function parseBodyMiddleware(request: Request, response: Response, next: NextFunction): void {
    if (request.method !== 'POST' && request.method !== 'PUT' && request.method !== 'PATCH') return next();
    readJsonBody(request, response, limitBytes, fallback).then((result) => {
      if (!result.ok) return next(result.error);
      request.body = result.body;
      next();
    }, next);
  };
}
