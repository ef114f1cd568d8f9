import { createHash } from 'node:crypto';
import type { DashboardSession, LoginLink } from '../../contract';
import { toAccountView } from '../accounts/account-operations';
import type { DashboardSessionRow, Store } from '../db/types';
import { authenticationError, type GatewayError } from '../errors/gateway-error';
import { recordAudit } from '../audit/audit-log';
import { accountNotFound } from '../keys/key-operations';
import { hashesEqual, hashKey, newId, randomBase62 } from '../keys/key-text';

/** How long a dashboard sign-in lasts (absolute, not sliding). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** How long a login link stays usable: long enough to hand over by chat or mail; it works once. */
export const LOGIN_LINK_TTL_MS = 24 * 60 * 60 * 1000;
/** Login-link tokens are recognisable, so the sign-in route knows which check applies. */
export const LOGIN_TOKEN_PREFIX = 'lt-';

export interface SessionDependencies {
  store: Store;
  now: () => number;
}

/** A session as the middleware resolved it from the cookie. */
export interface ResolvedSession {
  row: DashboardSessionRow;
  /** What the browser must echo in the CSRF header on state-changing requests. */
  csrfToken: string;
}

/**
 * The CSRF token is derived from the session token rather than stored: only a page that
 * could read the session (the dashboard, same origin, through GET /v1/admin/session or the
 * sign-in answer) knows it, and the cookie itself is HttpOnly.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`csrf\u0000${sessionToken}`, 'utf8').digest('hex');
}

export function csrfTokenMatches(sessionToken: string, header: string | undefined): boolean {
  return typeof header === 'string' && /^[0-9a-f]{64}$/.test(header) && hashesEqual(header, csrfTokenFor(sessionToken));
}

/** `model-gateway accounts login-link ID` and POST /v1/admin/accounts/{id}/login-link. */
export async function createLoginLink(
  dependencies: SessionDependencies & { requestId?: string | null },
  accountId: string,
  baseUrl: string,
): Promise<LoginLink> {
  const account = await dependencies.store.getAccount(accountId);
  if (!account) throw accountNotFound(accountId);
  const token = LOGIN_TOKEN_PREFIX + randomBase62(48);
  const now = dependencies.now();
  const row = await dependencies.store.createLoginToken({
    id: newId('login'),
    tokenHash: hashKey(token),
    accountId,
    createdAt: new Date(now),
    expiresAt: new Date(now + LOGIN_LINK_TTL_MS),
  });
  // A new way into the account: audited (docs/operator-controls.md), never with its token.
  await recordAudit(dependencies, {
    action: 'account.login_link',
    accountId,
    targetId: row.id,
    before: null,
    after: { expires_at: row.expiresAt.toISOString() },
  });
  // In the fragment: browsers never send it to a server, so it stays out of access logs and Referer.
  return { url: `${baseUrl.replace(/\/+$/, '')}/dashboard/login#token=${token}`, expires_at: row.expiresAt.toISOString() };
}

/**
 * Signs in with the admin token (the operator) or a login-link token (that account's owner,
 * once). Resolves to the new session's token, for the cookie, and its row.
 */
export async function signIn(
  dependencies: SessionDependencies & { adminTokenHash: string | null },
  token: string,
): Promise<{ token: string; row: DashboardSessionRow }> {
  const now = dependencies.now();
  // Expired rows are useless; sign-ins are rare enough to carry the cleanup.
  await dependencies.store.pruneDashboardCredentials(new Date(now));
  let accountId: string | null;
  if (token.startsWith(LOGIN_TOKEN_PREFIX)) {
    const login = await dependencies.store.consumeLoginToken(hashKey(token), new Date(now));
    if (!login) {
      throw authenticationError('invalid_api_key', 'This login link is invalid, expired or already used: ask the operator for a new one.');
    }
    accountId = login.accountId;
  } else {
    const refusal = checkAdminToken(dependencies.adminTokenHash, token);
    if (refusal) throw refusal;
    accountId = null;
  }
  const sessionToken = randomBase62(48);
  const row = await dependencies.store.createDashboardSession({
    id: newId('sess'),
    // An operator got here past checkAdminToken, which refuses when there is no admin token.
    tokenHash: accountId === null ? operatorSessionHash(sessionToken, dependencies.adminTokenHash as string) : hashKey(sessionToken),
    accountId,
    createdAt: new Date(now),
    expiresAt: new Date(now + SESSION_TTL_MS),
  });
  return { token: sessionToken, row };
}

export function checkAdminToken(adminTokenHash: string | null, token: string): GatewayError | null {
  if (adminTokenHash === null) {
    return authenticationError('invalid_api_key', 'The admin API is disabled: set GATEWAY_ADMIN_TOKEN to enable it.');
  }
  return hashesEqual(hashKey(token), adminTokenHash) ? null : authenticationError('invalid_api_key', 'Invalid admin token.');
}

/**
 * What an operator session is stored under: the hash of its token together with the admin
 * token's hash, so that changing GATEWAY_ADMIN_TOKEN ends every operator session signed in
 * with the old one (its row is no longer found; it expires and is pruned). An account
 * owner's session is stored under its token's hash alone: it does not come from the admin token.
 */
export function operatorSessionHash(sessionToken: string, adminTokenHash: string): string {
  return hashKey(`operator\u0000${adminTokenHash}\u0000${sessionToken}`);
}

/**
 * The live session of a cookie's token, or null (unknown, expired, signed out, or an
 * operator session of another admin token than the current one).
 */
export async function findSession(
  dependencies: SessionDependencies,
  sessionToken: string,
  adminTokenHash: string | null,
): Promise<ResolvedSession | null> {
  if (!/^[0-9A-Za-z]{48}$/.test(sessionToken)) return null;
  let row = await dependencies.store.findDashboardSessionByHash(hashKey(sessionToken));
  // Only account sessions are stored under the plain hash (an operator row found there
  // predates the binding to the admin token and is not honoured).
  if (row?.accountId === null) row = null;
  if (!row && adminTokenHash !== null) {
    const operator = await dependencies.store.findDashboardSessionByHash(operatorSessionHash(sessionToken, adminTokenHash));
    if (operator?.accountId === null) row = operator;
  }
  if (!row || row.expiresAt.getTime() <= dependencies.now()) return null;
  return { row, csrfToken: csrfTokenFor(sessionToken) };
}

export async function toSessionView(store: Store, session: ResolvedSession): Promise<DashboardSession> {
  const { row } = session;
  let account = null;
  if (row.accountId !== null) {
    const accountRow = await store.getAccount(row.accountId);
    if (!accountRow) throw accountNotFound(row.accountId);
    account = toAccountView(accountRow);
  }
  return {
    object: 'dashboard.session',
    role: row.accountId === null ? 'operator' : 'account',
    account,
    csrf_token: session.csrfToken,
    expires_at: row.expiresAt.toISOString(),
  };
}
