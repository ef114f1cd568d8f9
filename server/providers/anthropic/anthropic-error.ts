import { UpstreamError } from '../../errors/gateway-error';
import { parseJson, upstreamStatusError } from '../upstream-errors';
import { AnthropicErrorBodySchema } from './anthropic-schemas';

/**
 * Anthropic errors -> gateway errors (docs/errors.md).
 * https://platform.claude.com/docs/en/api/errors
 * Every error body is `{"type":"error","error":{"type":…,"message":…}}`; the same object
 * arrives as an `error` event when a stream fails after it started.
 */

/** The HTTP status Anthropic documents for each error type, for errors that arrive mid-stream. */
const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** The provider's message from an error body, or null when the body is not Anthropic's shape. */
export function readAnthropicErrorMessage(body: string): string | null {
  const json = parseJson(body);
  if (!json.ok) return null;
  const parsed = AnthropicErrorBodySchema.safeParse(json.value);
  if (!parsed.success) return null;
  const { type, message } = parsed.data.error;
  return message ? `${message} (${type})` : type;
}

/** A non-2xx answer; `retryAfterMs` from its `retry-after` header (sent with 429s). */
export function anthropicStatusError(
  provider: string,
  status: number,
  body: string,
  apiKey: string,
  retryAfterMs: number | null = null,
): UpstreamError {
  return errorForStatus(provider, status, readAnthropicErrorMessage(body), apiKey, retryAfterMs);
}

/** An `error` event inside a 200 stream, mapped as if it had arrived with its documented status. */
export function anthropicStreamError(
  provider: string,
  error: { type: string; message?: string | undefined },
  apiKey: string,
): UpstreamError {
  const status = STATUS_BY_ERROR_TYPE[error.type] ?? 500;
  return errorForStatus(provider, status, error.message ? `${error.message} (${error.type})` : error.type, apiKey);
}

/**
 * 529 (`overloaded_error`) is a 5xx for upstreamStatusError, hence retryable. 402
 * (`billing_error`) concerns the gateway's account, not the caller's request: it is treated
 * like a credential failure (502, provider text withheld) rather than as the caller's 400.
 */
function errorForStatus(
  provider: string,
  status: number,
  message: string | null,
  apiKey: string,
  retryAfterMs: number | null = null,
): UpstreamError {
  if (status === 402) {
    return new UpstreamError('unavailable', `The provider "${provider}" refused the request for billing reasons.`, {
      retryable: false,
      upstreamStatus: status,
    });
  }
  return upstreamStatusError(provider, status, message, apiKey, retryAfterMs);
}
