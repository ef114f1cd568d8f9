import type { ApiKey, CreatedApiKey } from '../../contract';
import type { ApiKeyRow, Store } from '../db/types';
import { GatewayError, invalidRequest, notFound } from '../errors/gateway-error';
import type { KeyCache } from './key-cache';
import { generateKeyText, hashKey, keyHint, newId } from './key-text';

/**
 * The key operations of docs/keys-and-accounts.md and docs/cli.md, shared by the CLI and the admin routes so
 * that both follow the same rules: REVOKED is final, `blocked` toggles on ACTIVE keys only.
 * `cache` is this process's key cache; it applies a change at once and announces it to the
 * other instances (the CLI's cache only announces). Without Redis, running servers pick
 * changes up by polling.
 */
export interface KeyOperationsDependencies {
  store: Store;
  cache?: KeyCache;
  now: () => number;
}

export function toApiKeyView(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    account_id: row.accountId,
    name: row.name,
    hint: row.hint,
    status: row.status,
    blocked: row.blocked,
    rpm: row.rpm,
    tpm: row.tpm,
    created_at: row.createdAt.toISOString(),
    revoked_at: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}

export async function createApiKey(
  dependencies: KeyOperationsDependencies,
  input: { accountId: string; name: string; rpm?: number | null; tpm?: number | null },
): Promise<CreatedApiKey> {
  const account = await dependencies.store.getAccount(input.accountId);
  if (!account) throw accountNotFound(input.accountId);
  const key = generateKeyText('sk-');
  const row = await dependencies.store.createApiKey({
    id: newId('key'),
    accountId: account.id,
    name: input.name,
    keyHash: hashKey(key),
    hint: keyHint(key),
    rpm: input.rpm ?? null,
    tpm: input.tpm ?? null,
    createdAt: new Date(dependencies.now()),
  });
  dependencies.cache?.putApiKey(row);
  return { ...toApiKeyView(row), key };
}

export async function getApiKey(dependencies: KeyOperationsDependencies, keyId: string): Promise<ApiKeyRow> {
  const row = await dependencies.store.getApiKey(keyId);
  if (!row) throw notFound('not_found', `No API key with id "${keyId}".`, 'keyId');
  return row;
}

export type KeyChange =
  | { kind: 'revoke' }
  | { kind: 'block' }
  | { kind: 'unblock' }
  | { kind: 'update'; name?: string; rpm?: number | null; tpm?: number | null };

export async function changeApiKey(dependencies: KeyOperationsDependencies, keyId: string, change: KeyChange): Promise<ApiKey> {
  const current = await getApiKey(dependencies, keyId);
  const revoked = current.status === 'REVOKED';
  let patch: Parameters<Store['updateApiKey']>[1];
  switch (change.kind) {
    case 'revoke':
      // Revoking twice is harmless and keeps the first revocation time.
      patch = revoked ? {} : { status: 'REVOKED', revokedAt: new Date(dependencies.now()) };
      break;
    case 'block':
    case 'unblock':
      if (revoked) throw keyRevoked(keyId);
      patch = { blocked: change.kind === 'block' };
      break;
    case 'update':
      if (revoked && (change.rpm !== undefined || change.tpm !== undefined)) throw keyRevoked(keyId);
      patch = {};
      if (change.name !== undefined) patch.name = change.name;
      if (change.rpm !== undefined) patch.rpm = change.rpm;
      if (change.tpm !== undefined) patch.tpm = change.tpm;
      break;
  }
  const row = Object.keys(patch).length === 0 ? current : await dependencies.store.updateApiKey(keyId, patch);
  if (!row) throw notFound('not_found', `No API key with id "${keyId}".`, 'keyId');
  // Applied here at once; other instances hear of it through the key-change channel.
  await dependencies.cache?.apiKeyChanged(row);
  return toApiKeyView(row);
}

export async function listApiKeys(dependencies: KeyOperationsDependencies, accountId: string): Promise<ApiKey[]> {
  const account = await dependencies.store.getAccount(accountId);
  if (!account) throw accountNotFound(accountId);
  const rows = await dependencies.store.listApiKeys(accountId);
  return rows.map(toApiKeyView);
}

/** docs/keys-and-accounts.md: a new usage query key replaces (invalidates) the old one. */
export async function rotateUsageKey(dependencies: KeyOperationsDependencies, accountId: string): Promise<{ key: string; hint: string; created_at: string }> {
  const account = await dependencies.store.getAccount(accountId);
  if (!account) throw accountNotFound(accountId);
  const key = generateKeyText('uk-');
  const row = await dependencies.store.setUsageKey({
    id: newId('ukey'),
    accountId,
    keyHash: hashKey(key),
    hint: keyHint(key),
    createdAt: new Date(dependencies.now()),
  });
  await dependencies.cache?.usageKeyChanged(row);
  return { key, hint: row.hint, created_at: row.createdAt.toISOString() };
}

export function accountNotFound(accountId: string): GatewayError {
  return notFound('not_found', `No account with id "${accountId}".`, 'accountId');
}

export function keyNotFound(keyId: string): GatewayError {
  return notFound('not_found', `No API key with id "${keyId}".`, 'keyId');
}

function keyRevoked(keyId: string): GatewayError {
  return invalidRequest('key_revoked', `The key "${keyId}" is revoked; revocation is final.`, 'keyId');
}
