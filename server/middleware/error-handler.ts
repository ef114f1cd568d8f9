import type { NextFunction, Request, Response } from 'express';
import { RequestValidationError } from '@ts-rest/express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, isUnstorableText } from '../db/database-errors';
import { GatewayError, internalError } from '../errors/gateway-error';
import { sendError } from '../errors/render-error';
import { fromZodError } from '../errors/validation-error';

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
  return function errorHandlerMiddleware(error: unknown, _request: Request, response: Response, _next: NextFunction): void {
    const requestId = String(response.locals.requestId ?? 'unknown');
    let gatewayError: GatewayError;
    if (error instanceof GatewayError) gatewayError = error;
    else if (error instanceof RequestValidationError) gatewayError = toValidationError(error);
    else if (error instanceof URIError) {
      // Express could not decode a path parameter (`/v1/admin/keys/%ZZ`): the client's URL.
      gatewayError = new GatewayError(400, 'invalid_request_error', 'invalid_value', 'The request URL is not valid percent-encoding.');
    } else if (isUnstorableText(error)) {
      gatewayError = new GatewayError(400, 'invalid_request_error', 'invalid_value', 'The request contains characters that cannot be stored (e.g. NUL).');
    } else if (isDatabaseUnavailable(error)) {
      // A key seen before still works from the cache; what needs the database waits for it.
      logger.warn({ requestId, err: error }, 'database unavailable');
      gatewayError = new GatewayError(503, 'server_error', 'database_unavailable', 'The gateway cannot reach its database right now; please retry shortly.');
    } else {
      logger.error({ requestId, err: error }, 'unhandled error');
      gatewayError = internalError(requestId);
    }
    sendError(response, gatewayError);
  };
}
