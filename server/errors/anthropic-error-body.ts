import type { MessagesErrorBody, MessagesErrorType } from '../../contract';
import type { GatewayError } from './gateway-error';

/**
 * The gateway's errors in Anthropic's shape (https://platform.claude.com/docs/en/api/errors),
 * with the gateway's own statuses (docs/errors.md): the status stays, the `type` is the one
 * Anthropic documents for it, so the Anthropic SDK raises its matching error class.
 */
const TYPE_BY_STATUS: Readonly<Record<number, MessagesErrorType>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function messagesErrorType(status: number): MessagesErrorType {
  return TYPE_BY_STATUS[status] ?? (status < 500 ? 'invalid_request_error' : 'api_error');
}

/** The body of an error reply, and of the `error` event of a stream that already started. */
export function toMessagesErrorBody(error: GatewayError): MessagesErrorBody {
  // The gateway's own `param` has no field in Anthropic's body: the message names it.
  const message = error.param && !error.message.includes(error.param) ? `${error.param}: ${error.message}` : error.message;
  return { type: 'error', error: { type: messagesErrorType(error.status), message } };
}
