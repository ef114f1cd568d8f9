import type { Account } from '../../contract';
import type { AccountRow, Store } from '../db/types';
import { newId } from '../keys/key-text';

export function toAccountView(row: AccountRow): Account {
  return { id: row.id, name: row.name, created_at: row.createdAt.toISOString() };
}

export async function createAccount(dependencies: { store: Store; now: () => number }, name: string): Promise<Account> {
  const row = await dependencies.store.createAccount({ id: newId('acct'), name, createdAt: new Date(dependencies.now()) });
  return toAccountView(row);
}

export async function listAccounts(dependencies: { store: Store }): Promise<Account[]> {
  return (await dependencies.store.listAccounts()).map(toAccountView);
}
