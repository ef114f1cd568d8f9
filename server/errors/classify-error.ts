import type { Logger } from 'pino';
import { isDatabaseUnavailable, isUnstorableText } from '../db/database-errors';
import { GatewayError, internalError } from './gateway-error';

/**
 * Any error a request ended with, as the GatewayError to answer (docs/errors.md): a
 * GatewayError as it is, what the client caused as a 400, an unreachable database as a 503,
 * anything else a logged 500 naming the request id.
 */
export function classifyError(error: unknown, requestId: string, logger: Logger): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof URIError) {
    // Express could not decode a path parameter (`/v1/admin/keys/%ZZ`): the client's URL.
    return new GatewayError(400, 'invalid_request_error', 'invalid_value', 'The request URL is not valid percent-encoding.');
  }
  if (isUnstorableText(error)) {
    return new GatewayError(
      400,
      'invalid_request_error',
      'invalid_value',
      'The request contains characters that cannot be stored (e.g. NUL).',
    );
  }
  if (isDatabaseUnavailable(error)) {
    // A key seen before still works from the cache; what needs the database waits for it.
    logger.warn({ requestId, err: error }, 'database unavailable');
    return new GatewayError(
      503,
      'server_error',
      'database_unavailable',
      'The gateway cannot reach its database right now; please retry shortly.',
    );
  }
  logger.error({ requestId, err: error }, 'unhandled error');
  return internalError(requestId);
}
