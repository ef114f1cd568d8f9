import type { Sql } from '@prisma/client/runtime/client';

/*
 * The part of the generated Prisma clients the store uses. The SQLite and Postgres clients
 * are generated from identical models but are distinct TypeScript types, so the store is
 * written against this structural subset; create-store.ts assigns each dialect's client to
 * it, which makes the compiler check that both really provide it.
 */

type Order = 'asc' | 'desc';

export interface AccountRecord {
  id: string;
  name: string;
  createdAt: Date;
  rpm: number | null;
  tpm: number | null;
  /** JSON array text, or null. */
  models: string | null;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  keyHash: string;
  hint: string;
  status: string;
  blocked: boolean;
  rpm: number | null;
  tpm: number | null;
  createdAt: Date;
  revokedAt: Date | null;
  updatedAt: Date;
  models: string | null;
  expiresAt: Date | null;
  blockedBy: string | null;
  lastUsedAt: Date | null;
  previousKeyHash: string | null;
  previousKeyExpiresAt: Date | null;
}

/** The account ceilings read with every key (the request path checks both). */
export const ACCOUNT_CEILINGS = { select: { rpm: true, tpm: true, models: true } } as const;
export type AccountCeilingsRecord = Pick<AccountRecord, 'rpm' | 'tpm' | 'models'>;
export type ApiKeyWithAccountRecord = ApiKeyRecord & { account: AccountCeilingsRecord };
type WithCeilings = { include: { account: typeof ACCOUNT_CEILINGS } };

export interface AuditEntryRecord {
  id: string;
  at: Date;
  actor: string;
  accountId: string | null;
  action: string;
  targetId: string;
  before: string | null;
  after: string | null;
  requestId: string | null;
}

export interface UsageKeyRecord {
  id: string;
  accountId: string;
  keyHash: string;
  hint: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface UsageDailyRecord {
  keyId: string;
  day: string;
  accountId: string;
  requests: number;
  promptTokens: bigint;
  completionTokens: bigint;
  costNanoUsd: bigint;
  costFemtoRemainder: bigint;
}

export interface DashboardSessionRecord {
  id: string;
  tokenHash: string;
  accountId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export interface LoginTokenRecord {
  id: string;
  tokenHash: string;
  accountId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

export type ApiKeyPatch = Partial<
  Pick<
    ApiKeyRecord,
    'name' | 'status' | 'blocked' | 'rpm' | 'tpm' | 'revokedAt' | 'models' | 'expiresAt' | 'blockedBy' | 'keyHash' | 'hint' | 'previousKeyHash' | 'previousKeyExpiresAt'
  >
> & {
  updatedAt: Date;
};

export type AccountPatch = Partial<Pick<AccountRecord, 'name' | 'rpm' | 'tpm' | 'models'>>;

/** What an interactive transaction callback gets. */
export interface GatewayDbTransaction {
  usageKey: {
    deleteMany(args: { where: { accountId: string } }): Promise<{ count: number }>;
    create(args: { data: UsageKeyRecord }): Promise<UsageKeyRecord>;
  };
  account: {
    update(args: { where: { id: string }; data: AccountPatch }): Promise<AccountRecord>;
  };
  apiKey: {
    updateMany(args: { where: { accountId: string }; data: { updatedAt: Date } }): Promise<{ count: number }>;
  };
  $executeRaw(query: Sql): Promise<number>;
  $queryRaw(query: Sql): Promise<unknown>;
}

export interface GatewayDb {
  account: {
    create(args: { data: AccountRecord }): Promise<AccountRecord>;
    findMany(args: { orderBy: Array<{ createdAt: Order } | { id: Order }> }): Promise<AccountRecord[]>;
    findUnique(args: { where: { id: string } }): Promise<AccountRecord | null>;
  };
  apiKey: {
    create(args: { data: Omit<ApiKeyRecord, 'lastUsedAt' | 'previousKeyHash' | 'previousKeyExpiresAt'> } & WithCeilings): Promise<ApiKeyWithAccountRecord>;
    findUnique(args: { where: { id: string } | { keyHash: string } | { previousKeyHash: string } } & WithCeilings): Promise<ApiKeyWithAccountRecord | null>;
    findMany(args: {
      where: { accountId: string } | { updatedAt: { gte: Date } };
      orderBy: Array<{ createdAt: Order } | { name: Order } | { updatedAt: Order } | { id: Order }>;
    } & WithCeilings): Promise<ApiKeyWithAccountRecord[]>;
    update(args: { where: { id: string }; data: ApiKeyPatch } & WithCeilings): Promise<ApiKeyWithAccountRecord>;
    updateMany(args: {
      where: { id: string; OR: Array<{ lastUsedAt: null } | { lastUsedAt: { lt: Date } }> };
      data: { lastUsedAt: Date };
    }): Promise<{ count: number }>;
  };
  auditEntry: {
    create(args: { data: AuditEntryRecord }): Promise<AuditEntryRecord>;
    findMany(args: {
      where: {
        accountId?: string;
        OR?: Array<{ at: { lt: Date } } | { at: Date; id: { lt: string } }>;
      };
      orderBy: Array<{ at: Order } | { id: Order }>;
      take: number;
    }): Promise<AuditEntryRecord[]>;
  };
  usageKey: {
    findUnique(args: { where: { accountId: string } | { keyHash: string } }): Promise<UsageKeyRecord | null>;
    findMany(args: {
      where: { updatedAt: { gte: Date } };
      orderBy: Array<{ updatedAt: Order } | { id: Order }>;
    }): Promise<UsageKeyRecord[]>;
  };
  usageEvent: {
    count(args: { where: { accountId?: string } }): Promise<number>;
    deleteMany(args: { where: { receivedAt: { lt: Date } } }): Promise<{ count: number }>;
  };
  dashboardSession: {
    create(args: { data: DashboardSessionRecord }): Promise<DashboardSessionRecord>;
    findUnique(args: { where: { tokenHash: string } }): Promise<DashboardSessionRecord | null>;
    deleteMany(args: { where: { tokenHash: string } | { expiresAt: { lt: Date } } }): Promise<{ count: number }>;
  };
  loginToken: {
    create(args: { data: LoginTokenRecord }): Promise<LoginTokenRecord>;
    findUnique(args: { where: { tokenHash: string } }): Promise<LoginTokenRecord | null>;
    updateMany(args: {
      where: { tokenHash: string; usedAt: null; expiresAt: { gt: Date } };
      data: { usedAt: Date };
    }): Promise<{ count: number }>;
    deleteMany(args: { where: { expiresAt: { lt: Date } } }): Promise<{ count: number }>;
  };
  $transaction<R>(
    callback: (transaction: GatewayDbTransaction) => Promise<R>,
    options?: { maxWait?: number; timeout?: number },
  ): Promise<R>;
  $queryRaw(query: Sql): Promise<unknown>;
  $queryRawUnsafe(query: string): Promise<unknown>;
  $disconnect(): Promise<void>;
}
