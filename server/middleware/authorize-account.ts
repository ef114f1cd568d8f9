import type { NextFunction, Request, Response } from 'express';
import type { AdminScope } from '../../contract';
import type { Store } from '../db/types';
import { operatorOnly } from '../errors/gateway-error';
import { accountNotFound, keyNotFound } from '../keys/key-operations';
import { routeAuth, type Principal } from './authenticate';

type ScopedRequest = Pick<Request, 'params' | 'headers' | 'method' | 'secure'> & { tsRestRoute?: { metadata?: unknown } };

/**
 * The account an authenticated caller is confined to, or null when it may reach every
 * account (the operator, by admin token or by dashboard session).
 */
export function accountScope(principal: Principal | undefined): string | null {
  return principal?.kind === 'session' ? principal.session.row.accountId : null;
}

/**
 * docs/keys-and-accounts.md, "nobody ever sees or changes another account's keys or usage", for the
 * dashboard: on admin routes an account owner's session reaches only its own account, as
 * the route's `metadata.scope` (contract/admin.ts) says. Another account's account or key
 * is answered exactly like one that does not exist (404), so ids cannot be probed. A route
 * without a scope is refused: new admin routes are operator-only until they declare one.
 */
export function authorizeAccount(options: { store: Store }) {
  return function authorizeAccountMiddleware(request: ScopedRequest, response: Response, next: NextFunction): void {
    const accountId = accountScope(response.locals.context.principal);
    if (accountId === null || routeAuth(request) !== 'admin') return next();
    const scope = (request.tsRestRoute?.metadata as { scope?: AdminScope } | undefined)?.scope;
    switch (scope) {
      case 'accounts':
        // The handler lists only `accountScope`'s account.
        return next();
      case 'account': {
        const requested = String(request.params.accountId ?? '');
        return next(requested === accountId ? undefined : accountNotFound(requested));
      }
      case 'key': {
        const keyId = String(request.params.keyId ?? '');
        return void options.store
          .getApiKey(keyId)
          .then((key) => next(key && key.accountId === accountId ? undefined : keyNotFound(keyId)), next);
      }
      default:
        return next(operatorOnly());
    }
  };
}
