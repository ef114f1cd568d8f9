import type { NextFunction, Request, Response } from 'express';
import { CountTokensRequestSchema, MessagesRequestSchema } from '../../contract';
import { fromZodError } from '../errors/validation-error';
import type { ErrorFormat } from '../errors/render-error';
import type { KeyCache } from '../keys/key-cache';
import { countMessageTokens, createMessage, type MessagesDependencies } from '../messages/create-message';
import { authenticateApiKey } from '../middleware/authenticate';
import type { NativeMessagesHeaders } from '../providers/types';

export interface MessagesRouteDependencies extends MessagesDependencies {
  keys: KeyCache;
}

/** The paths whose errors have Anthropic's shape (the error handler's `formatFor`). */
export function messagesErrorFormat(path: string): ErrorFormat {
  return path === '/v1/messages' || path.startsWith('/v1/messages/') ? 'anthropic' : 'gateway';
}

/**
 * POST /v1/messages and POST /v1/messages/count_tokens (contract/messages.ts,
 * docs/anthropic-messages.md), written out like the chat route (model-routes.ts): the key
 * from `x-api-key` (the Anthropic SDK's default) or `Authorization: Bearer`, then the body
 * against the contract's schema, then the handler. Errors go to the error handler, which
 * renders them in Anthropic's shape for these paths.
 */
export function messagesRoutes(dependencies: MessagesRouteDependencies) {
  return {
    create: handler(dependencies.keys, async (request, response, key, requestId) => {
      const parsed = MessagesRequestSchema.safeParse(request.body);
      if (!parsed.success) throw fromZodError(parsed.error);
      return createMessage(dependencies, {
        body: parsed.data,
        raw: request.body as Record<string, unknown>,
        bodyBytes: Number(request.headers['content-length'] ?? 0) || JSON.stringify(request.body).length,
        headers: anthropicHeaders(request),
        key,
        requestId,
        response,
      });
    }),
    countTokens: handler(dependencies.keys, async (request, response, key, requestId) => {
      const parsed = CountTokensRequestSchema.safeParse(request.body);
      if (!parsed.success) throw fromZodError(parsed.error);
      const count = await countMessageTokens(dependencies, {
        body: parsed.data,
        raw: request.body as Record<string, unknown>,
        headers: anthropicHeaders(request),
        key,
        requestId,
        response,
      });
      return { json: JSON.stringify(count) };
    }),
  };
}

type Run = (
  request: Request,
  response: Response,
  key: Parameters<typeof createMessage>[1]['key'],
  requestId: string,
) => Promise<{ json: string } | null>;

function handler(keys: KeyCache, run: Run) {
  return function messagesRoute(request: Request, response: Response, next: NextFunction): void {
    const apiKey = request.headers['x-api-key'];
    const authorization = typeof apiKey === 'string' && apiKey.length > 0 ? `Bearer ${apiKey}` : request.headers.authorization;
    authenticateApiKey(keys, authorization)
      .then((principal) => {
        response.locals.principal = principal;
        return run(request, response, principal.key, String(response.locals.requestId));
      })
      .then((result) => {
        if (result === null) return;
        response.statusCode = 200;
        response.setHeader('Content-Type', 'application/json; charset=utf-8');
        response.setHeader('Content-Length', Buffer.byteLength(result.json));
        response.end(result.json);
      }, next);
  };
}

function anthropicHeaders(request: Request): NativeMessagesHeaders {
  const header = (name: string): string | null => {
    const value = request.headers[name];
    return typeof value === 'string' && value.length > 0 ? value : Array.isArray(value) ? value.join(',') : null;
  };
  return { anthropicVersion: header('anthropic-version'), anthropicBeta: header('anthropic-beta') };
}
