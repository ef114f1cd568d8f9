import { initServer } from '@ts-rest/express';
import { contract } from '../../contract';
import { createAccount, listAccounts, toAccountView } from '../accounts/account-operations';
import type { Store } from '../db/types';
import type { KeyCache } from '../keys/key-cache';
import { accountNotFound, changeApiKey, createApiKey, getApiKey, listApiKeys, rotateUsageKey, toApiKeyView } from '../keys/key-operations';
import { accountScope } from '../middleware/authorize-account';
import type { Principal } from '../middleware/authenticate';
import { createLoginLink } from '../sessions/session-operations';
import type { UsageReporter } from '../usage/usage-report';

const s = initServer();

export interface AdminRouterDependencies {
  store: Store;
  keys: KeyCache;
  now: () => number;
  usageReport: UsageReporter;
}

/**
 * The operator's routes (docs/keys-and-accounts.md), thin: the rules live in key-operations.ts. An
 * account owner's dashboard session reaches them too, confined to its own account by the
 * authorize-account middleware before any handler runs.
 */
export function adminRouter(dependencies: AdminRouterDependencies) {
  const operations = { store: dependencies.store, cache: dependencies.keys, now: dependencies.now };
  const requireAccount = async (accountId: string) => {
    const row = await dependencies.store.getAccount(accountId);
    if (!row) throw accountNotFound(accountId);
    return row;
  };

  return s.router(contract.admin, {
    listAccounts: async ({ res }) => {
      const only = accountScope(res.locals.context.principal);
      const accounts = await listAccounts(operations);
      return { status: 200, body: { object: 'list' as const, data: only === null ? accounts : accounts.filter((account) => account.id === only) } };
    },
    createAccount: async ({ body }) => ({ status: 201, body: await createAccount(operations, body.name) }),
    getAccount: async ({ params }) => ({ status: 200, body: toAccountView(await requireAccount(params.accountId)) }),
    listKeys: async ({ params }) => ({ status: 200, body: { object: 'list' as const, data: await listApiKeys(operations, params.accountId) } }),
    createKey: async ({ params, body }) => ({
      status: 201,
      body: await createApiKey(operations, { accountId: params.accountId, name: body.name, rpm: body.rpm, tpm: body.tpm }),
    }),
    getKey: async ({ params }) => ({ status: 200, body: toApiKeyView(await getApiKey(operations, params.keyId)) }),
    updateKey: async ({ params, body }) => ({ status: 200, body: await changeApiKey(operations, params.keyId, { kind: 'update', ...body }) }),
    revokeKey: async ({ params }) => ({ status: 200, body: await changeApiKey(operations, params.keyId, { kind: 'revoke' }) }),
    blockKey: async ({ params }) => ({ status: 200, body: await changeApiKey(operations, params.keyId, { kind: 'block' }) }),
    unblockKey: async ({ params }) => ({ status: 200, body: await changeApiKey(operations, params.keyId, { kind: 'unblock' }) }),
    getUsageKey: async ({ params }) => {
      await requireAccount(params.accountId);
      const row = await dependencies.store.getUsageKeyByAccount(params.accountId);
      return {
        status: 200,
        body: row ? { exists: true, hint: row.hint, created_at: row.createdAt.toISOString() } : { exists: false, hint: null, created_at: null },
      };
    },
    createUsageKey: async ({ params }) => ({ status: 201, body: await rotateUsageKey(operations, params.accountId) }),
    createLoginLink: async ({ params, req }) => ({
      status: 201,
      body: await createLoginLink(operations, params.accountId, `${req.protocol}://${req.get('host') ?? 'localhost'}`),
    }),
    getUsage: async ({ params, query }) => {
      await requireAccount(params.accountId);
      return { status: 200, body: await dependencies.usageReport(params.accountId, query, { detail: true }) };
    },
  });
}
