import type {
  AccountCeilings,
  AccountRow,
  ApiKeyPatch,
  ApiKeyRow,
  AuditEntryRow,
  DashboardSessionRow,
  DeploymentStateRow,
  LoginTokenRow,
  NewApiKey,
  ReportKeyRow,
  UsageKeyRow,
} from '../../server/db/types';
import { NOTHING_SET } from '../../server/db/rows';

/**
 * The in-memory accounts, API keys, usage keys, dashboard sessions and sign-in links, audit
 * log and deployment switches of FakeStore (fake-store.ts), read back as the real store reads
 * them: copies, keys with their account's current ceilings.
 */
export class FakeAccountStore {
  private readonly accounts = new Map<string, AccountRow>();
  private readonly apiKeys = new Map<string, ApiKeyRow>();
  private readonly usageKeys = new Map<string, UsageKeyRow>();
  private readonly sessions = new Map<string, DashboardSessionRow>();
  private readonly loginTokens = new Map<string, LoginTokenRow>();
  /** Audit entries, oldest first. */
  readonly audit: AuditEntryRow[] = [];

  constructor(protected readonly now: () => Date = () => new Date()) {}

  async createAccount(input: { id: string; name: string; createdAt: Date } & Partial<AccountCeilings>): Promise<AccountRow> {
    const account: AccountRow = { rpm: null, tpm: null, models: null, ...input, budget: input.budget ?? null };
    this.accounts.set(account.id, account);
    return { ...account };
  }

  async updateAccount(id: string, patch: Partial<Pick<AccountRow, 'name'> & AccountCeilings>): Promise<AccountRow | null> {
    const account = this.accounts.get(id);
    if (account === undefined) return null;
    const updated = { ...account, ...definedOnly(patch) };
    this.accounts.set(id, updated);
    if (patch.rpm !== undefined || patch.tpm !== undefined || patch.models !== undefined || patch.budget !== undefined) {
      for (const key of this.apiKeys.values()) if (key.accountId === id) key.updatedAt = this.now();
    }
    return { ...updated };
  }

  /** A stored key with its account's current ceilings, as the real store reads it. */
  private withCeilings(key: ApiKeyRow): ApiKeyRow {
    const account = this.accounts.get(key.accountId);
    return {
      ...key,
      account: { rpm: account?.rpm ?? null, tpm: account?.tpm ?? null, models: account?.models ?? null, budget: account?.budget ?? null },
    };
  }

  private readonly deploymentStates = new Map<string, DeploymentStateRow>();

  async listDeploymentStates(): Promise<DeploymentStateRow[]> {
    return [...this.deploymentStates.values()].sort((left, right) => compare(left.id, right.id)).map((row) => ({ ...row }));
  }

  async setDeploymentEnabled(id: string, enabled: boolean, at: Date): Promise<DeploymentStateRow> {
    const row = { id, enabled, updatedAt: at };
    this.deploymentStates.set(id, row);
    return { ...row };
  }

  async appendAudit(entry: AuditEntryRow): Promise<void> {
    this.audit.push({ ...entry });
  }

  async listAudit(query: { accountId?: string; limit: number; before?: { at: Date; id: string } }): Promise<AuditEntryRow[]> {
    const newestFirst = [...this.audit].sort((left, right) => right.at.getTime() - left.at.getTime() || compare(right.id, left.id));
    const { before } = query;
    return newestFirst
      .filter((entry) => query.accountId === undefined || entry.accountId === query.accountId)
      .filter((entry) => !before || entry.at < before.at || (entry.at.getTime() === before.at.getTime() && entry.id < before.id))
      .slice(0, query.limit)
      .map((entry) => ({ ...entry }));
  }

  async listAccounts(): Promise<AccountRow[]> {
    return [...this.accounts.values()].map((account) => ({ ...account }));
  }

  async getAccount(id: string): Promise<AccountRow | null> {
    const account = this.accounts.get(id);
    return account === undefined ? null : { ...account };
  }

  async createApiKey(input: NewApiKey): Promise<ApiKeyRow> {
    const key: ApiKeyRow = {
      models: null,
      expiresAt: null,
      budget: null,
      setBy: NOTHING_SET,
      ...input,
      status: 'ACTIVE',
      blocked: false,
      blockedBy: null,
      revokedAt: null,
      updatedAt: this.now(),
      lastUsedAt: null,
      previousKeyHash: null,
      previousKeyExpiresAt: null,
      account: { rpm: null, tpm: null, models: null, budget: null },
    };
    this.apiKeys.set(key.id, key);
    return this.withCeilings(key);
  }

  async getApiKey(id: string): Promise<ApiKeyRow | null> {
    const key = this.apiKeys.get(id);
    return key === undefined ? null : this.withCeilings(key);
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRow | null> {
    const key = [...this.apiKeys.values()].find((candidate) => candidate.keyHash === keyHash || candidate.previousKeyHash === keyHash);
    return key === undefined ? null : this.withCeilings(key);
  }

  async listApiKeys(accountId: string): Promise<ApiKeyRow[]> {
    return [...this.apiKeys.values()]
      .filter((key) => key.accountId === accountId)
      .sort((left, right) => left.createdAt.getTime() - right.createdAt.getTime() || compare(left.name, right.name))
      .map((key) => this.withCeilings(key));
  }

  async listReportKeys(accountId: string): Promise<ReportKeyRow[]> {
    return (await this.listApiKeys(accountId)).map(({ id, name, hint, status, blocked, createdAt }) => ({
      id,
      name,
      hint,
      status,
      blocked,
      createdAt,
    }));
  }

  async updateApiKey(id: string, patch: ApiKeyPatch): Promise<ApiKeyRow | null> {
    const key = this.apiKeys.get(id);
    if (key === undefined) return null;
    const updated: ApiKeyRow = { ...key, ...definedOnly(patch), updatedAt: this.now() };
    this.apiKeys.set(id, updated);
    return this.withCeilings(updated);
  }

  async apiKeysChangedSince(since: Date): Promise<ApiKeyRow[]> {
    return [...this.apiKeys.values()].filter((key) => key.updatedAt.getTime() >= since.getTime()).map((key) => this.withCeilings(key));
  }

  async setUsageKey(input: { id: string; accountId: string; keyHash: string; hint: string; createdAt: Date }): Promise<UsageKeyRow> {
    const row: UsageKeyRow = { ...input, updatedAt: this.now() };
    this.usageKeys.set(input.accountId, row);
    return { ...row };
  }

  async getUsageKeyByAccount(accountId: string): Promise<UsageKeyRow | null> {
    const row = this.usageKeys.get(accountId);
    return row === undefined ? null : { ...row };
  }

  async findUsageKeyByHash(keyHash: string): Promise<UsageKeyRow | null> {
    const row = [...this.usageKeys.values()].find((candidate) => candidate.keyHash === keyHash);
    return row === undefined ? null : { ...row };
  }

  async usageKeysChangedSince(since: Date): Promise<UsageKeyRow[]> {
    return [...this.usageKeys.values()].filter((row) => row.updatedAt.getTime() >= since.getTime()).map((row) => ({ ...row }));
  }

  async createDashboardSession(input: DashboardSessionRow): Promise<DashboardSessionRow> {
    this.sessions.set(input.tokenHash, { ...input });
    return { ...input };
  }

  async findDashboardSessionByHash(tokenHash: string): Promise<DashboardSessionRow | null> {
    const row = this.sessions.get(tokenHash);
    return row === undefined ? null : { ...row };
  }

  async deleteDashboardSession(tokenHash: string): Promise<void> {
    this.sessions.delete(tokenHash);
  }

  async createLoginToken(input: Omit<LoginTokenRow, 'usedAt'>): Promise<LoginTokenRow> {
    const row: LoginTokenRow = { ...input, usedAt: null };
    this.loginTokens.set(input.tokenHash, row);
    return { ...row };
  }

  async consumeLoginToken(tokenHash: string, at: Date): Promise<LoginTokenRow | null> {
    const row = this.loginTokens.get(tokenHash);
    if (row === undefined || row.usedAt !== null || row.expiresAt.getTime() <= at.getTime()) return null;
    row.usedAt = at;
    return { ...row };
  }

  async pruneDashboardCredentials(before: Date): Promise<number> {
    let pruned = 0;
    for (const map of [this.sessions, this.loginTokens]) {
      for (const [hash, row] of map) {
        if (row.expiresAt.getTime() < before.getTime()) {
          map.delete(hash);
          pruned += 1;
        }
      }
    }
    return pruned;
  }
}

export function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}
