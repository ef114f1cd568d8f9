/**
 * The one error class tree of the gateway. Every error a client can see is a
 * GatewayError (or becomes one in the error handler); `render-error.ts` is the only
 * code that turns it into the JSON envelope of docs/errors.md.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'insufficient_quota'
  | 'upstream_error'
  | 'server_error';

export interface GatewayErrorOptions {
  param?: string | null;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string | null;
  readonly param: string | null;
  /** Extra response headers, e.g. `retry-after` on 429. */
  readonly headers: Record<string, string>;

  constructor(status: number, type: ErrorType, code: string | null, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.status = status;
    this.type = type;
    this.code = code;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export const invalidRequest = (code: string, message: string, param: string | null = null, status = 400): GatewayError =>
  new GatewayError(status, 'invalid_request_error', code, message, { param });

export const authenticationError = (code: 'missing_api_key' | 'invalid_api_key' | 'key_expired', message: string): GatewayError =>
  new GatewayError(401, 'authentication_error', code, message);

export const permissionError = (code: string, message: string, param: string | null = null): GatewayError =>
  new GatewayError(403, 'permission_error', code, message, { param });

/**
 * docs/operator-controls.md: what only the operator may do or loosen, refused to an account
 * owner (an operator-only route, or loosening what the operator set on a key).
 */
export const operatorOnly = (
  message = 'Only the operator (signed in with the admin token) can do this.',
  param: string | null = null,
): GatewayError => permissionError('operator_only', message, param);

export const notFound = (
  code: 'model_not_found' | 'route_not_found' | 'not_found',
  message: string,
  param: string | null = null,
): GatewayError => new GatewayError(404, 'invalid_request_error', code, message, { param });

export const rateLimited = (message: string, headers: Record<string, string>): GatewayError =>
  new GatewayError(429, 'rate_limit_error', 'rate_limit_exceeded', message, { headers });

export const internalError = (requestId: string, cause?: unknown): GatewayError =>
  new GatewayError(
    500,
    'server_error',
    'internal_error',
    `The server had an error while processing your request (request id ${requestId}).`,
    { cause },
  );

export type UpstreamErrorKind = 'unavailable' | 'timeout' | 'bad_response' | 'rejected';

/**
 * An error from (or on the way to) a provider. `retryable` tells the retry loop whether
 * another attempt or a fallback model may help: connect errors, 429 and 5xx may; a 4xx that
 * is the caller's fault (`rejected`) never does.
 */
export class UpstreamError extends GatewayError {
  readonly kind: UpstreamErrorKind;
  readonly retryable: boolean;
  readonly upstreamStatus: number | null;
  /** The upstream's `retry-after` (ms) when it sent one; the retry loop waits at least that long. */
  readonly retryAfterMs: number | null;

  constructor(
    kind: UpstreamErrorKind,
    message: string,
    options: {
      retryable: boolean;
      upstreamStatus?: number | null;
      retryAfterMs?: number | null;
      cause?: unknown;
      /** A more precise code than the kind's, e.g. `content_filter` for a rejection by the provider's filter. */
      code?: string;
    },
  ) {
    const status = kind === 'timeout' ? 504 : kind === 'rejected' ? 400 : 502;
    const type: ErrorType = kind === 'rejected' ? 'invalid_request_error' : 'upstream_error';
    const code =
      options.code ??
      (kind === 'timeout'
        ? 'upstream_timeout'
        : kind === 'rejected'
          ? 'upstream_rejected'
          : kind === 'bad_response'
            ? 'upstream_bad_response'
            : 'upstream_unavailable');
    super(status, type, code, message, { cause: options.cause });
    this.name = 'UpstreamError';
    this.kind = kind;
    this.retryable = options.retryable;
    this.upstreamStatus = options.upstreamStatus ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

/** docs/usage-durability.md: the call's usage cannot be made durable (the journal's disk is full), so it is not served. */
export const usageUnavailable = (cause?: unknown): GatewayError =>
  new GatewayError(
    503,
    'server_error',
    'usage_unavailable',
    'Usage cannot be recorded right now, so the request is not served; retry shortly.',
    { cause },
  );
