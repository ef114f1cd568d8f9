import type { NextFunction, Request, Response } from 'express';
import { RequestValidationError } from '@ts-rest/express';
import type { Logger } from 'pino';
import { classifyError } from '../errors/classify-error';
import { GatewayError } from '../errors/gateway-error';
import { sendError } from '../errors/render-error';
import { fromZodError } from '../errors/validation-error';
import { errorFormatForPath } from '../pipeline/error-formats';

/** ts-rest's `requestValidationErrorHandler`: validation failures in our envelope. */
export function toValidationError(error: RequestValidationError): GatewayError {
  if (error.body) return fromZodError(error.body);
  if (error.query) return fromZodError(error.query, [], 'query');
  if (error.pathParams) return fromZodError(error.pathParams, [], 'path');
  if (error.headers) return fromZodError(error.headers);
  return new GatewayError(400, 'invalid_request_error', 'invalid_value', 'The request is invalid.');
}

/** The final Express error handler: anything unexpected is a logged 500 with the request id. */
export function errorHandler(logger: Logger) {
  return function errorHandlerMiddleware(error: unknown, request: Request, response: Response, _next: NextFunction): void {
    const context = response.locals.context;
    const requestId = context?.requestId || 'unknown';
    const gatewayError = error instanceof RequestValidationError ? toValidationError(error) : classifyError(error, requestId, logger);
    sendError(response, gatewayError, errorFormatForPath(request.path));
  };
}
