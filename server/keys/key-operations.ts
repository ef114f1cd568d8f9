import type { ApiKey, CreatedApiKey } from '../../contract';
import { toBudget, toBudgetView } from '../budgets/budget-view';
import { OPERATOR, recordAudit, type Actor } from '../audit/audit-log';
import { NOTHING_SET } from '../db/rows';
import type { AccountCeilings, ApiKeyPatch, ApiKeyRow, Store } from '../db/types';
import { invalidRequest, notFound, permissionError, type GatewayError } from '../errors/gateway-error';
import { checkOwnerTightens, setByAfter, type KeySettings } from './key-authority';
import type { KeyCache } from './key-cache';
import { generateKeyText, hashKey, keyHint, newId } from './key-text';
import { checkModelList } from './model-access';

/**
 * The key operations of docs/keys-and-accounts.md, docs/operator-controls.md and docs/cli.md,
 * shared by the CLI and the admin routes so that both follow the same rules: REVOKED is final,
 * `blocked` toggles on ACTIVE keys only, a key stays within its account's ceilings, and an
 * owner cannot lift the operator's block. `cache` is this process's key cache; it applies a
 * change at once and announces it to the other instances (the CLI's cache only announces).
 * What the operator set on a key, an owner may tighten but not loosen (key-authority.ts).
 * Without Redis, running servers pick changes up by polling.
 */
export interface KeyOperationsDependencies {
  store: Store;
  cache?: KeyCache;
  now: () => number;
  /** Who makes the change; default the operator (admin token, CLI). */
  actor?: Actor;
  /** Recorded in the audit log. */
  requestId?: string | null;
  /** The catalogue's model ids: an allow-list's exact ids must be among them. Absent = not checked. */
  catalogue?: ReadonlySet<string>;
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
    blocked_by: row.blocked ? (row.blockedBy ?? 'operator') : null,
    models: row.models,
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
    last_used_at: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    previous_secret_expires_at: row.previousKeyHash !== null && row.previousKeyExpiresAt ? row.previousKeyExpiresAt.toISOString() : null,
    budget: toBudgetView(row.budget),
    set_by: {
      rpm: row.setBy.rpm,
      tpm: row.setBy.tpm,
      models: row.setBy.models,
      expires_at: row.setBy.expiresAt,
      budget: row.setBy.budget,
    },
  };
}

/** What the audit log keeps of a key: its view without the moving `last_used_at`. */
function auditView(row: ApiKeyRow): Omit<ApiKey, 'last_used_at'> {
  const { last_used_at: _lastUsed, ...view } = toApiKeyView(row);
  return view;
}

/**
 * docs/operator-controls.md: a key's own limits and budget amount cannot exceed its account's
 * ceilings (400 `invalid_value` naming the field), its allow-list lies within the account's,
 * and an expiry is in the future.
 */
function checkKeySettings(dependencies: KeyOperationsDependencies, account: AccountCeilings, settings: KeySettings): void {
  for (const field of ['rpm', 'tpm'] as const) {
    const value = settings[field];
    const ceiling = account[field];
    if (value !== undefined && value !== null && ceiling !== null && value > ceiling) {
      throw invalidRequest('invalid_value', `${field} ${value} exceeds the account's ceiling of ${ceiling} set by the operator.`, field);
    }
  }
  if (settings.models) {
    const refusal = checkModelList(settings.models, { catalogue: dependencies.catalogue, within: account.models, param: 'models' });
    if (refusal) throw refusal;
  }
  if (settings.budget && account.budget && toBudget(settings.budget, 0).amountFemtoUsd > account.budget.amountFemtoUsd) {
    throw invalidRequest(
      'invalid_value',
      `budget ${settings.budget.amount_usd} USD exceeds the account's budget of ${toBudgetView(account.budget)?.amount_usd} USD set by the operator.`,
      'budget',
    );
  }
  if (settings.expiresAt && settings.expiresAt.getTime() <= dependencies.now()) {
    throw invalidRequest('invalid_value', 'expires_at is in the past; to stop a key now, block or revoke it.', 'expires_at');
  }
}

export async function createApiKey(
  dependencies: KeyOperationsDependencies,
  input: { accountId: string; name: string } & KeySettings,
): Promise<CreatedApiKey> {
  const account = await dependencies.store.getAccount(input.accountId);
  if (!account) throw accountNotFound(input.accountId);
  checkKeySettings(dependencies, account, input);
  const key = generateKeyText('sk-');
  const row = await dependencies.store.createApiKey({
    id: newId('key'),
    accountId: account.id,
    name: input.name,
    keyHash: hashKey(key),
    hint: keyHint(key),
    rpm: input.rpm ?? null,
    tpm: input.tpm ?? null,
    models: input.models ?? null,
    expiresAt: input.expiresAt ?? null,
    budget: input.budget ? toBudget(input.budget, dependencies.now()) : null,
    setBy: setByAfter(NOTHING_SET, input, dependencies.actor ?? OPERATOR),
    createdAt: new Date(dependencies.now()),
  });
  dependencies.cache?.putApiKey(row);
  await recordAudit(dependencies, {
    action: 'key.create',
    accountId: row.accountId,
    targetId: row.id,
    before: null,
    after: auditView(row),
  });
  return { ...toApiKeyView(row), key };
}

export async function getApiKey(dependencies: KeyOperationsDependencies, keyId: string): Promise<ApiKeyRow> {
  const row = await dependencies.store.getApiKey(keyId);
  if (!row) throw keyNotFound(keyId);
  return row;
}

export type KeyChange = { kind: 'revoke' } | { kind: 'block' } | { kind: 'unblock' } | ({ kind: 'update'; name?: string } & KeySettings);

export async function changeApiKey(dependencies: KeyOperationsDependencies, keyId: string, change: KeyChange): Promise<ApiKey> {
  const current = await getApiKey(dependencies, keyId);
  const revoked = current.status === 'REVOKED';
  const actor = dependencies.actor ?? OPERATOR;
  let patch: ApiKeyPatch;
  switch (change.kind) {
    case 'revoke':
      // Revoking twice is harmless and keeps the first revocation time.
      patch = revoked ? {} : { status: 'REVOKED', revokedAt: new Date(dependencies.now()) };
      break;
    case 'block':
      if (revoked) throw keyRevoked(keyId);
      // The operator's block stands over an owner's: blocking again as owner keeps it the operator's.
      patch = current.blocked && current.blockedBy === 'operator' ? {} : { blocked: true, blockedBy: actor.kind };
      break;
    case 'unblock':
      if (revoked) throw keyRevoked(keyId);
      if (actor.kind === 'owner' && current.blocked && current.blockedBy !== 'owner') {
        throw permissionError('blocked_by_operator', 'The operator blocked this key; only the operator can unblock it.');
      }
      patch = current.blocked ? { blocked: false, blockedBy: null } : {};
      break;
    case 'update': {
      const { kind: _kind, name, ...settings } = change;
      const settingsChanged = Object.values(settings).some((value) => value !== undefined);
      if (revoked && settingsChanged) throw keyRevoked(keyId);
      checkOwnerTightens(current, settings, actor);
      checkKeySettings(dependencies, current.account, settings);
      patch = settingsChanged ? { setBy: setByAfter(current.setBy, settings, actor) } : {};
      if (name !== undefined) patch.name = name;
      if (settings.rpm !== undefined) patch.rpm = settings.rpm;
      if (settings.tpm !== undefined) patch.tpm = settings.tpm;
      if (settings.models !== undefined) patch.models = settings.models;
      if (settings.expiresAt !== undefined) patch.expiresAt = settings.expiresAt;
      if (settings.budget !== undefined) patch.budget = settings.budget === null ? null : toBudget(settings.budget, dependencies.now());
      break;
    }
  }
  if (Object.keys(patch).length === 0) return toApiKeyView(current);
  const row = await dependencies.store.updateApiKey(keyId, patch);
  if (!row) throw keyNotFound(keyId);
  // Applied here at once; other instances hear of it through the key-change channel.
  await dependencies.cache?.apiKeyChanged(row);
  await recordAudit(dependencies, {
    action: `key.${change.kind}`,
    accountId: row.accountId,
    targetId: row.id,
    before: auditView(current),
    after: auditView(row),
  });
  return toApiKeyView(row);
}

/**
 * docs/operator-controls.md, rotation: a new secret for the same key (id, name, limits, usage
 * history kept). The previous secret keeps working for `graceSeconds` (0: it stops at once),
 * on every instance: the grace's end is stored with the key and checked against the clock. A
 * key holds one previous secret, so rotating again makes the second secret the previous one
 * and ends the first's grace at once; each call gives a new secret.
 */
export async function rotateApiKey(dependencies: KeyOperationsDependencies, keyId: string, graceSeconds: number): Promise<CreatedApiKey> {
  const current = await getApiKey(dependencies, keyId);
  if (current.status === 'REVOKED') throw keyRevoked(keyId);
  const key = generateKeyText('sk-');
  const graceEnds = graceSeconds > 0 ? new Date(dependencies.now() + graceSeconds * 1000) : null;
  const row = await dependencies.store.updateApiKey(keyId, {
    keyHash: hashKey(key),
    hint: keyHint(key),
    previousKeyHash: graceEnds ? current.keyHash : null,
    previousKeyExpiresAt: graceEnds,
  });
  if (!row) throw keyNotFound(keyId);
  await dependencies.cache?.apiKeyChanged(row);
  await recordAudit(dependencies, {
    action: 'key.rotate',
    accountId: row.accountId,
    targetId: row.id,
    before: auditView(current),
    after: auditView(row),
  });
  return { ...toApiKeyView(row), key };
}

export async function listApiKeys(dependencies: KeyOperationsDependencies, accountId: string): Promise<ApiKey[]> {
  const account = await dependencies.store.getAccount(accountId);
  if (!account) throw accountNotFound(accountId);
  const rows = await dependencies.store.listApiKeys(accountId);
  return rows.map(toApiKeyView);
}

/** docs/keys-and-accounts.md: a new usage query key replaces (invalidates) the old one. */
export async function rotateUsageKey(
  dependencies: KeyOperationsDependencies,
  accountId: string,
): Promise<{ key: string; hint: string; created_at: string }> {
  const account = await dependencies.store.getAccount(accountId);
  if (!account) throw accountNotFound(accountId);
  const previous = await dependencies.store.getUsageKeyByAccount(accountId);
  const key = generateKeyText('uk-');
  const row = await dependencies.store.setUsageKey({
    id: newId('ukey'),
    accountId,
    keyHash: hashKey(key),
    hint: keyHint(key),
    createdAt: new Date(dependencies.now()),
  });
  await dependencies.cache?.usageKeyChanged(row);
  const view = (usageKey: { hint: string; createdAt: Date }) => ({ hint: usageKey.hint, created_at: usageKey.createdAt.toISOString() });
  await recordAudit(dependencies, {
    action: 'usage_key.create',
    accountId,
    targetId: row.id,
    before: previous ? view(previous) : null,
    after: view(row),
  });
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
