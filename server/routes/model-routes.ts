import type { NextFunction, Request, Response } from 'express';
import { Readable } from 'node:stream';
import type { z } from 'zod';
import { createChatCompletion, type ChatDependencies } from '../completions/chat-completion';
import { createEmbeddings } from '../completions/embeddings';
import { fromZodError } from '../errors/validation-error';
import type { CachedApiKey, KeyCache } from '../keys/key-cache';
import { authenticateApiKey } from '../middleware/authenticate';
import { validateChatRequest, validateEmbeddingsRequest } from './fast-body-checks';

export interface ModelRouteDependencies extends ChatDependencies {
  keys: KeyCache;
}

/**
 * POST /v1/chat/completions and POST /v1/embeddings, the hot path, as plain Express handlers
 * doing what the ts-rest route would: the contract's `metadata.auth` (an API key), the
 * contract's body schema (checked by hand first, zod for anything the hand check does not
 * pass: fast-body-checks.ts), the handler, the reply. Written out because ts-rest's generic
 * route costs more than the rest of the gateway's own work on a short request: its response
 * path through res.json/res.send (content-type parsing, charset lookup, ETag checks) alone
 * does. Replies are the same bytes and headers; the HTTP tests hold both to the contract.
 */
export function modelRoutes(dependencies: ModelRouteDependencies) {
  return {
    chat: handler(dependencies, validateChatRequest, (body, key, requestId, response) =>
      createChatCompletion(dependencies, { body, key, requestId, response }),
    ),
    embeddings: handler(dependencies, validateEmbeddingsRequest, (body, key, requestId, response) =>
      createEmbeddings(dependencies, { body, key, requestId, response }),
    ),
  };
}

function handler<Body>(
  dependencies: ModelRouteDependencies,
  validate: (value: unknown) => z.SafeParseReturnType<unknown, Body>,
  run: (body: Body, key: CachedApiKey, requestId: string, response: Response) => Promise<object>,
) {
  return function modelRoute(request: Request, response: Response, next: NextFunction): void {
    authenticateApiKey(dependencies.keys, request.headers.authorization).then((principal) => {
      response.locals.principal = principal;
      // Authentication first, then the body: the order of ts-rest's global middleware and handler.
      const parsed = validate(request.body);
      if (!parsed.success) throw fromZodError(parsed.error);
      return run(parsed.data, principal.key, String(response.locals.requestId), response);
    }).then((result) => {
      if (result instanceof Readable) {
        result.pipe(response);
        return;
      }
      sendJson(response, result);
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
