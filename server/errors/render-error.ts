import type { Response } from 'express';
import { openAiErrorFormat, type ErrorFormat } from '../pipeline/error-formats';
import { OVERHEAD_HEADER } from '../pipeline/reply';
import type { GatewayError } from './gateway-error';

/**
 * Every error on the routes Express serves leaves through here with the envelope of
 * docs/errors.md (the model routes render theirs in pipeline/model-pipeline.ts, with the
 * route's error format).
 */
export function sendError(response: Response, error: GatewayError, format: ErrorFormat = openAiErrorFormat): void {
  if (response.headersSent) {
    // Too late for a status line: end the response so the client is not left waiting.
    response.end();
    return;
  }
  for (const name in error.headers) response.setHeader(name, error.headers[name] as string);
  if (!shouldClientRetry(error.status)) response.setHeader('x-should-retry', 'false');
  const context = response.locals.context;
  if (context) response.setHeader(OVERHEAD_HEADER, context.markHeaders().toFixed(2));
  response
    .status(error.status)
    .type('application/json')
    .send(JSON.stringify(format(error)));
}

/** openai-node and the Anthropic SDK retry on 429/5xx by themselves; `x-should-retry: false` where a retry cannot help. */
export const shouldClientRetry = (status: number): boolean => status < 500 || status === 502 || status === 503 || status === 504;

export function errorJson(error: GatewayError): string {
  return JSON.stringify(error.toBody());
}
