import type { NextFunction, Request, Response } from 'express';

/** What the middleware reads of a request: ts-rest has set `tsRestRoute` before it runs. */
type AuthenticatedRequest = Pick<Request, 'headers' | 'method' | 'secure'> & { ip?: string; tsRestRoute?: { metadata?: unknown } };
import { CSRF_HEADER, type RouteAuth } from '../../contract';
import { authenticationError, GatewayError, permissionError, rateLimited } from '../errors/gateway-error';
import type { KeyLimiter } from '../rate-limit/key-limiter';
import type { CachedApiKey, CachedUsageKey, KeyCache } from '../keys/key-cache';
import { apiKeyRefusal } from '../keys/key-access';
import { looksLikeKey } from '../keys/key-text';
import { clearSessionCookie, readSessionCookie } from '../sessions/session-cookie';
import {
  checkAdminToken,
  csrfTokenMatches,
  findSession,
  type ResolvedSession,
  type SessionDependencies,
} from '../sessions/session-operations';

export type Principal =
  | { kind: 'api-key'; key: CachedApiKey }
  | { kind: 'usage-key'; key: CachedUsageKey }
  | { kind: 'admin' }
  /** A dashboard browser: the operator's (`row.accountId` null) or an account owner's. */
  | { kind: 'session'; session: ResolvedSession }
  | { kind: 'none' };

type ApiKeyPrincipal = Extract<Principal, { kind: 'api-key' }>;

export interface AuthenticateOptions {
  keys: KeyCache;
  /** SHA-256 of GATEWAY_ADMIN_TOKEN; null disables the admin routes. */
  adminTokenHash: string | null;
  /** Where dashboard sessions are looked up; absent = session cookies are ignored. */
  sessions?: SessionDependencies;
  /** Wrong admin tokens per client IP (config `limits.admin_auth_failures_per_minute`); absent = unlimited. */
  secretAttempts?: SecretAttemptGuard;
  /** The clock key expiry and rotation grace are decided by; default Date.now. */
  now?: () => number;
}

/** Counts failed secret checks per client IP: `guardSecretCheck`. */
export interface SecretAttemptGuard {
  limiter: Pick<KeyLimiter, 'checkSecretAttempt'>;
  perMinute: number;
}

/**
 * Runs a check of a guessable secret (the admin token, a login link) under the per-IP limit
 * of failed attempts: an IP that has used up its failures gets a 429 with `retry-after`
 * before anything is checked (so a right guess made then tells nothing, and a login link
 * is not used up); otherwise the check runs, and the 401 it throws is charged to the IP.
 * `onRefused` marks the response for the rate-limit metrics.
 */
export async function guardSecretCheck<T>(
  guard: SecretAttemptGuard | undefined,
  ip: string | undefined,
  check: () => Promise<T> | T,
  onRefused: () => void,
): Promise<T> {
  if (!guard) return check();
  const client = ip ?? 'unknown';
  const before = await guard.limiter.checkSecretAttempt(client, false, guard.perMinute);
  if (!before.allowed) {
    onRefused();
    throw rateLimited(
      'Too many failed attempts with a wrong admin token or login link from this address; retry after the time in retry-after.',
      before.headers,
    );
  }
  try {
    return await check();
  } catch (error) {
    if (error instanceof GatewayError && error.status === 401) await guard.limiter.checkSecretAttempt(client, true, guard.perMinute);
    throw error;
  }
}

/** Methods that change nothing: the only ones a session cookie authenticates without the CSRF header. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Reads the route's `metadata.auth` (contract/) and authenticates accordingly. */
export function routeAuth(request: AuthenticatedRequest): RouteAuth {
  const route = request.tsRestRoute;
  const auth = (route?.metadata as { auth?: RouteAuth } | undefined)?.auth;
  return auth ?? 'none';
}

/**
 * docs/keys-and-accounts.md: `sk-` keys for model routes, the
 * `uk-` key for the usage route, the admin token for admin routes. Unknown, revoked or expired ->
 * 401, blocked -> 403 (keys/key-access.ts decides). A known key is checked from the cache without a database read.
 */
export function authenticate(options: AuthenticateOptions) {
  return function authenticateMiddleware(request: AuthenticatedRequest, response: Response, next: NextFunction): void {
    const auth = routeAuth(request);
    if (auth === 'none') {
      response.locals.context.principal = { kind: 'none' } satisfies Principal;
      return next();
    }
    const done = (result: Principal | GatewayError): void => {
      if ('kind' in result) {
        response.locals.context.principal = result;
        next();
      } else {
        next(result);
      }
    };
    const token = bearerToken(request.headers.authorization);
    // The dashboard: a session cookie stands in for the admin token (a bearer token wins).
    if (auth === 'session' || (auth === 'admin' && token === null)) {
      const sessionToken = readSessionCookie(request.headers.cookie);
      if (sessionToken !== null && options.sessions) {
        return void checkSession(options.sessions, options.adminTokenHash, request, response, sessionToken).then(done, next);
      }
      if (auth === 'session') return next(authenticationError('missing_api_key', 'Not signed in to the dashboard.'));
    }
    if (token === null) return next(missingApiKey());
    switch (auth) {
      case 'api-key':
        return void checkApiKey(options.keys, token, options.now ?? Date.now).then(done, next);
      case 'usage-key':
        return void checkUsageKey(options.keys, token).then(done, next);
      case 'admin':
        return void guardSecretCheck<Principal>(
          options.secretAttempts,
          request.ip,
          () => {
            const refusal = checkAdminToken(options.adminTokenHash, token);
            if (refusal) throw refusal;
            return { kind: 'admin' };
          },
          () => void (response.locals.context.rateLimitExceeded = 'secret_attempts'),
        ).then(done, next);
    }
  };
}

/**
 * The `api-key` case of `authenticate` for the model pipeline (pipeline/model-pipeline.ts),
 * given the token its route reads (`bearerToken`, or `x-api-key` where the route accepts
 * it): the same checks and the same errors (rejected with).
 */
export async function authenticateApiKey(keys: KeyCache, token: string | null, now: () => number = Date.now): Promise<ApiKeyPrincipal> {
  if (token === null) throw missingApiKey();
  const result = await checkApiKey(keys, token, now);
  if (result instanceof GatewayError) throw result;
  return result;
}

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}

const missingApiKey = (): GatewayError =>
  authenticationError('missing_api_key', 'Missing API key: send it as "Authorization: Bearer <key>".');

const invalidKey = (): GatewayError => authenticationError('invalid_api_key', 'Invalid API key.');

async function checkApiKey(keys: KeyCache, token: string, now: () => number): Promise<ApiKeyPrincipal | GatewayError> {
  if (token.startsWith('uk-')) {
    return authenticationError('invalid_api_key', 'A usage query key (uk-) cannot call models; use an API key (sk-).');
  }
  if (!looksLikeKey(token, 'sk-')) return invalidKey();
  const key = await keys.findApiKey(token);
  if (!key) return invalidKey();
  return apiKeyRefusal(key, now()) ?? { kind: 'api-key', key };
}

async function checkUsageKey(keys: KeyCache, token: string): Promise<Principal | GatewayError> {
  if (token.startsWith('sk-')) {
    return authenticationError('invalid_api_key', 'The usage report needs the usage query key (uk-), not an API key (sk-).');
  }
  if (!looksLikeKey(token, 'uk-')) return invalidKey();
  const key = await keys.findUsageKey(token);
  return key ? { kind: 'usage-key', key } : invalidKey();
}

/**
 * A session cookie is ambient authority: the browser sends it by itself, so on top of
 * SameSite=Strict a state-changing request must prove it comes from the dashboard by
 * echoing the session's CSRF token in a header, which another site can neither read nor set.
 */
async function checkSession(
  sessions: SessionDependencies,
  adminTokenHash: string | null,
  request: AuthenticatedRequest,
  response: Response,
  sessionToken: string,
): Promise<Principal | GatewayError> {
  const session = await findSession(sessions, sessionToken, adminTokenHash);
  if (!session) {
    clearSessionCookie(response, request.secure);
    return authenticationError('invalid_api_key', 'Your dashboard session has expired or was ended: sign in again.');
  }
  const header = request.headers[CSRF_HEADER];
  if (!SAFE_METHODS.has(request.method) && !csrfTokenMatches(sessionToken, Array.isArray(header) ? undefined : header)) {
    return permissionError(
      'csrf_token_invalid',
      `Missing or wrong ${CSRF_HEADER} header: a request signed in by cookie must carry the session's CSRF token.`,
    );
  }
  return { kind: 'session', session };
}
