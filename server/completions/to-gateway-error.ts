import { GatewayError, internalError } from '../errors/gateway-error';
import { isAbortError } from '../providers/transport-errors';

/** Any failure of a model call as the GatewayError the client (and the usage record) sees. */
export function toGatewayError(error: unknown, requestId: string, aborted: boolean): GatewayError {
  if (error instanceof GatewayError) return error;
  if (aborted || isAbortError(error)) {
    // 499: nginx's "client closed request"; only ever seen in usage records and logs.
    return new GatewayError(499, 'invalid_request_error', 'client_closed_request', 'The client closed the request.');
  }
  return internalError(requestId, error);
}
