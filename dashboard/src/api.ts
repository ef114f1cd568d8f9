import { CSRF_HEADER } from '../../contract';
import { createGatewayClient, type GatewayClient } from '../../contract/client';

/**
 * The dashboard talks to the gateway only through the contract's typed client. The session
 * cookie (HttpOnly) goes along by itself (`credentials: same-origin`); state-changing
 * requests also carry the session's CSRF token, which the server checks.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function makeClient(csrfToken: string | null): GatewayClient {
  return createGatewayClient({
    baseUrl: window.location.origin,
    credentials: 'same-origin',
    headers: csrfToken ? { [CSRF_HEADER]: csrfToken } : {},
  });
}

let client = makeClient(null);

export function api(): GatewayClient {
  return client;
}

/** After sign-in (and when the session is read at start): every later request carries the token. */
export function useCsrfToken(token: string | null): void {
  client = makeClient(token);
}

interface AnyResponse {
  status: number;
  body: unknown;
}

function isEnvelope(body: unknown): body is { error: { message: string; code: string | null; param: string | null } } {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = body.error;
  return typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string';
}

/**
 * Awaits a client call and returns the body of the expected status; anything else becomes
 * an ApiError carrying the error envelope's message, code and param (docs/errors.md).
 */
export async function expectStatus<R extends AnyResponse, S extends R['status']>(
  request: Promise<R>,
  status: S,
): Promise<Extract<R, { status: S }>['body']> {
  let response: R;
  try {
    response = await request;
  } catch {
    throw new ApiError(0, 'The gateway could not be reached. Check the connection and try again.', 'network_error');
  }
  if (response.status === status) return response.body;
  if (isEnvelope(response.body)) {
    const { message, code, param } = response.body.error;
    throw new ApiError(response.status, message, code, param);
  }
  throw new ApiError(response.status, `Unexpected answer from the gateway (HTTP ${response.status}).`);
}
