import { initServer } from '@ts-rest/express';
import type { Response } from 'express';
import { contract } from '../../contract';
import { createAccount, listAccounts, toAccountView, updateAccount } from '../accounts/account-operations';
import { budgetStatus } from '../budgets/budget-status';
import { listAudit, type Actor } from '../audit/audit-log';
import type { Store } from '../db/types';
import { invalidRequest } from '../errors/gateway-error';
import type { KeyCache } from '../keys/key-cache';
import {
  accountNotFound,
  changeApiKey,
  createApiKey,
  getApiKey,
  listApiKeys,
  rotateApiKey,
  rotateUsageKey,
  toApiKeyView,
  type KeyOperationsDependencies,
} from '../keys/key-operations';
import { accountScope } from '../middleware/authorize-account';
import { createLoginLink } from '../sessions/session-operations';
import type { UsageReporter } from '../usage/usage-report';

const s = initServer();

export interface AdminRouterDependencies {
  store: Store;
  keys: KeyCache;
  now: () => number;
  usageReport: UsageReporter;
  /** The catalogue's model ids, which allow-lists are checked against. */
  catalogue?: ReadonlySet<string>;
}

/** An owner's `expires_at`: a time, or null to clear it. */
const toDate = (text: string | null | undefined): Date | null | undefined => (text === undefined || text === null ? text : new Date(text));

/**
 * The operator's routes (docs/keys-and-accounts.md, docs/operator-controls.md), thin: the rules
 * live in key-operations.ts and account-operations.ts. An account owner's dashboard session
 * reaches them too, confined to its own account by the authorize-account middleware before
 * any handler runs; the operations learn who acts (`actor`) for the owner's limits and the
 * audit log.
 */
export function adminRouter(dependencies: AdminRouterDependencies) {
  const operationsFor = (response: Response): KeyOperationsDependencies & { actor: Actor } => {
    const accountId = accountScope(response.locals.context.principal);
    return {
      store: dependencies.store,
      cache: dependencies.keys,
      now: dependencies.now,
      catalogue: dependencies.catalogue,
      actor: accountId === null ? { kind: 'operator' } : { kind: 'owner', accountId },
      requestId: response.locals.context.requestId,
    };
  };
  const requireAccount = async (accountId: string) => {
    const row = await dependencies.store.getAccount(accountId);
    if (!row) throw accountNotFound(accountId);
    return row;
  };

  return s.router(contract.admin, {
    listAccounts: async ({ res }) => {
      const only = accountScope(res.locals.context.principal);
      const accounts = await listAccounts(dependencies);
      return {
        status: 200,
        body: { object: 'list' as const, data: only === null ? accounts : accounts.filter((account) => account.id === only) },
      };
    },
    createAccount: async ({ body, res }) => ({ status: 201, body: await createAccount(operationsFor(res), body.name) }),
    updateAccount: async ({ params, body, res }) => ({
      status: 200,
      body: await updateAccount(operationsFor(res), params.accountId, body),
    }),
    getAccount: async ({ params }) => ({ status: 200, body: toAccountView(await requireAccount(params.accountId)) }),
    getAccountBudget: async ({ params }) => {
      const account = await requireAccount(params.accountId);
      return { status: 200, body: await budgetStatus(dependencies.store, account.budget, { accountId: account.id }, dependencies.now()) };
    },
    listKeys: async ({ params, res }) => ({
      status: 200,
      body: { object: 'list' as const, data: await listApiKeys(operationsFor(res), params.accountId) },
    }),
    createKey: async ({ params, body, res }) => ({
      status: 201,
      body: await createApiKey(operationsFor(res), { accountId: params.accountId, ...body, expiresAt: toDate(body.expires_at) }),
    }),
    getKey: async ({ params, res }) => ({ status: 200, body: toApiKeyView(await getApiKey(operationsFor(res), params.keyId)) }),
    getKeyBudget: async ({ params, res }) => {
      const key = await getApiKey(operationsFor(res), params.keyId);
      return { status: 200, body: await budgetStatus(dependencies.store, key.budget, { keyId: key.id }, dependencies.now()) };
    },
    updateKey: async ({ params, body, res }) => {
      const { expires_at: expiresAt, ...rest } = body;
      return {
        status: 200,
        body: await changeApiKey(operationsFor(res), params.keyId, { kind: 'update', ...rest, expiresAt: toDate(expiresAt) }),
      };
    },
    revokeKey: async ({ params, res }) => ({ status: 200, body: await changeApiKey(operationsFor(res), params.keyId, { kind: 'revoke' }) }),
    blockKey: async ({ params, res }) => ({ status: 200, body: await changeApiKey(operationsFor(res), params.keyId, { kind: 'block' }) }),
    unblockKey: async ({ params, res }) => ({
      status: 200,
      body: await changeApiKey(operationsFor(res), params.keyId, { kind: 'unblock' }),
    }),
    rotateKey: async ({ params, body, res }) => ({
      status: 200,
      body: await rotateApiKey(operationsFor(res), params.keyId, body.grace_seconds),
    }),
    listAudit: async ({ query, res }) => {
      const only = accountScope(res.locals.context.principal);
      // An owner sees its own account's entries whatever account_id it asks for.
      const page = await listAudit(dependencies.store, { accountId: only ?? query.account_id, limit: query.limit, cursor: query.cursor });
      if (!page) throw invalidRequest('invalid_value', 'cursor is not a next_cursor this API gave.', 'cursor');
      return { status: 200, body: page };
    },
    getUsageKey: async ({ params }) => {
      await requireAccount(params.accountId);
      const row = await dependencies.store.getUsageKeyByAccount(params.accountId);
      return {
        status: 200,
        body: row
          ? { exists: true, hint: row.hint, created_at: row.createdAt.toISOString() }
          : { exists: false, hint: null, created_at: null },
      };
    },
    createUsageKey: async ({ params, res }) => ({ status: 201, body: await rotateUsageKey(operationsFor(res), params.accountId) }),
    createLoginLink: async ({ params, req, res }) => ({
      status: 201,
      body: await createLoginLink(operationsFor(res), params.accountId, `${req.protocol}://${req.get('host') ?? 'localhost'}`),
    }),
    getUsage: async ({ params, query }) => {
      await requireAccount(params.accountId);
      return { status: 200, body: await dependencies.usageReport(params.accountId, query, { detail: true }) };
    },
  });
}
