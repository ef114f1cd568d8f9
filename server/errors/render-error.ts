import type { Response } from 'express';
import { toMessagesErrorBody } from './anthropic-error-body';
import { GatewayError } from './gateway-error';

/** The error body's shape: the gateway's envelope, or Anthropic's on the /v1/messages routes (docs/errors.md). */
export type ErrorFormat = 'gateway' | 'anthropic';

/**
 * The only code that writes error JSON (style.md: one error renderer). Every error on every
 * route leaves through here with the envelope of decisions.md §1.
 */
export function sendError(response: Response, error: GatewayError, format: ErrorFormat = 'gateway'): void {
  if (response.headersSent) {
    // Too late for a status line: end the response so the client is not left waiting.
    response.end();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  // openai-node retries on 429/5xx by itself; tell it not to where a retry cannot help.
  if (error.status >= 500 && error.status !== 502 && error.status !== 503 && error.status !== 504) response.setHeader('x-should-retry', 'false');
  response.status(error.status).type('application/json').send(format === 'anthropic' ? JSON.stringify(toMessagesErrorBody(error)) : errorJson(error));
}

export function errorJson(error: GatewayError): string {
  return JSON.stringify(error.toBody());
}
