import type { Account, UpdateAccountBody } from '../../contract';
import { recordAudit, type AuditContext } from '../audit/audit-log';
import type { AccountRow } from '../db/types';
import type { KeyCache } from '../keys/key-cache';
import { accountNotFound } from '../keys/key-operations';
import { newId } from '../keys/key-text';
import { checkModelList } from '../keys/model-access';
import { toBudget, toBudgetView } from '../budgets/budget-view';

export function toAccountView(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    rpm: row.rpm,
    tpm: row.tpm,
    models: row.models,
    budget: toBudgetView(row.budget),
  };
}

export type AccountOperationsDependencies = AuditContext & { catalogue?: ReadonlySet<string>; cache?: KeyCache };

export async function createAccount(dependencies: AccountOperationsDependencies, name: string): Promise<Account> {
  const row = await dependencies.store.createAccount({ id: newId('acct'), name, createdAt: new Date(dependencies.now()) });
  const view = toAccountView(row);
  await recordAudit(dependencies, { action: 'account.create', accountId: row.id, targetId: row.id, before: null, after: view });
  return view;
}

export async function listAccounts(dependencies: { store: AuditContext['store'] }): Promise<Account[]> {
  return (await dependencies.store.listAccounts()).map(toAccountView);
}

/**
 * docs/operator-controls.md: the operator's ceilings of an account (rpm, tpm, models, spend
 * budget; null = none). Lowering one below a key's own limit is allowed: the key is then held to the ceiling.
 * The account's keys carry the ceilings in every instance's key cache, refreshed with them.
 */
export async function updateAccount(
  dependencies: AccountOperationsDependencies,
  accountId: string,
  change: UpdateAccountBody,
): Promise<Account> {
  const current = await dependencies.store.getAccount(accountId);
  if (!current) throw accountNotFound(accountId);
  if (change.models) {
    const refusal = checkModelList(change.models, { catalogue: dependencies.catalogue, param: 'models' });
    if (refusal) throw refusal;
  }
  const { budget, ...rest } = change;
  const row = await dependencies.store.updateAccount(accountId, {
    ...rest,
    ...(budget === undefined ? {} : { budget: budget === null ? null : toBudget(budget, dependencies.now()) }),
  });
  if (!row) throw accountNotFound(accountId);
  const ceilingsChanged = change.rpm !== undefined || change.tpm !== undefined || change.models !== undefined || budget !== undefined;
  if (dependencies.cache && ceilingsChanged) {
    // The keys carry the ceilings: applied here at once, announced to the other instances.
    for (const key of await dependencies.store.listApiKeys(accountId)) await dependencies.cache.apiKeyChanged(key);
  }
  const view = toAccountView(row);
  await recordAudit(dependencies, {
    action: 'account.update',
    accountId,
    targetId: accountId,
    before: toAccountView(current),
    after: view,
  });
  return view;
}
