import { initServer } from '@ts-rest/express';
import type { Response } from 'express';
import { contract } from '../../contract';
import type { Store } from '../db/types';
import { guardSecretCheck, type SecretAttemptGuard } from '../middleware/authenticate';
import { clearSessionCookie, setSessionCookie } from '../sessions/session-cookie';
import { csrfTokenFor, signIn, toSessionView, type ResolvedSession } from '../sessions/session-operations';

const s = initServer();

export interface SessionRouterDependencies {
  store: Store;
  now: () => number;
  adminTokenHash: string | null;
  /** Failed sign-ins per client IP (config `limits.admin_auth_failures_per_minute`). */
  secretAttempts?: SecretAttemptGuard;
}

function sessionOf(response: Response): ResolvedSession {
  const principal = response.locals.context.principal;
  if (principal?.kind !== 'session') throw new Error('session route reached without a session');
  return principal.session;
}

/** The dashboard's sign-in, thin: the rules live in sessions/session-operations.ts. */
export function sessionRouter(dependencies: SessionRouterDependencies) {
  return s.router(contract.session, {
    signIn: async ({ body, req, res }) => {
      const { token, row } = await guardSecretCheck(
        dependencies.secretAttempts,
        req.ip,
        () => signIn(dependencies, body.token),
        () => void (res.locals.context.rateLimitExceeded = 'secret_attempts'),
      );
      setSessionCookie(res, token, row.expiresAt, req.secure);
      res.setHeader('cache-control', 'no-store');
      return { status: 200, body: await toSessionView(dependencies.store, { row, csrfToken: csrfTokenFor(token) }) };
    },
    getSession: async ({ res }) => {
      res.setHeader('cache-control', 'no-store');
      return { status: 200, body: await toSessionView(dependencies.store, sessionOf(res)) };
    },
    signOut: async ({ req, res }) => {
      await dependencies.store.deleteDashboardSession(sessionOf(res).row.tokenHash);
      clearSessionCookie(res, req.secure);
      return { status: 204, body: undefined };
    },
  });
}
