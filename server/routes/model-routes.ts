import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import { createChatCompletion, type ChatDependencies } from '../completions/chat-completion';
import { createEmbeddings } from '../completions/embeddings';
import { ResponsesRequestSchema } from '../../contract';
import { createResponse, type ResponsesDependencies } from '../responses/create-response';
import { fromZodError } from '../errors/validation-error';
import type { CachedApiKey, KeyCache } from '../keys/key-cache';
import { authenticateApiKey } from '../middleware/authenticate';
import { validateChatRequest, validateEmbeddingsRequest } from './fast-body-checks';

export interface ModelRouteDependencies extends ChatDependencies, ResponsesDependencies {
  keys: KeyCache;
}

/**
 * POST /v1/chat/completions, POST /v1/embeddings and POST /v1/responses, the hot path, as plain Express handlers
 * doing what the ts-rest route would: the contract's `metadata.auth` (an API key), the
 * contract's body schema (checked by hand first, zod for anything the hand check does not
 * pass: fast-body-checks.ts), the handler, the reply. Written out to leave out what ts-rest's
 * generic route does on every request (its per-route middleware chain, the params, query and
 * headers checks, the reply through res.json/res.send with content-type parsing and charset
 * lookup). Replies are the same bytes and headers; the HTTP tests hold them to the contract.
 */
export function modelRoutes(dependencies: ModelRouteDependencies) {
  return {
    chat: handler(dependencies.keys, validateChatRequest, (body, key, requestId, response) =>
      createChatCompletion(dependencies, { body, key, requestId, response }),
    ),
    embeddings: handler(dependencies.keys, validateEmbeddingsRequest, (body, key, requestId, response) =>
      createEmbeddings(dependencies, { body, key, requestId, response }),
    ),
    responses: handler(dependencies.keys, (value) => ResponsesRequestSchema.safeParse(value), (body, key, requestId, response) =>
      createResponse(dependencies, { body, key, requestId, response }),
    ),
  };
}

function handler<Body>(
  keys: KeyCache,
  validate: (value: unknown) => z.SafeParseReturnType<unknown, Body>,
  /** The reply to send, or null when the handler is already sending it (a stream). */
  run: (body: Body, key: CachedApiKey, requestId: string, response: Response) => Promise<object | null>,
) {
  return function modelRoute(request: Request, response: Response, next: NextFunction): void {
    authenticateApiKey(keys, request.headers.authorization).then((principal) => {
      response.locals.principal = principal;
      // Authentication first, then the body: the order of ts-rest's global middleware and handler.
      const parsed = validate(request.body);
      if (!parsed.success) throw fromZodError(parsed.error);
      return run(parsed.data, principal.key, String(response.locals.requestId), response);
    }).then((result) => {
      if (result !== null) sendJson(response, result);
    }, next);
  };
}

/** res.json's reply (same headers), without its generic machinery. */
function sendJson(response: Response, value: object): void {
  const json = JSON.stringify(value);
  response.statusCode = 200;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(json));
  response.end(json);
}
