import type { Sql } from '@prisma/client/runtime/client';
import type { AccountRow, ApiKeyRow, DashboardSessionRow, LoginTokenRow, UsageDailyRow, UsageKeyRow } from './types';

/*
 * The part of the generated Prisma clients the store uses. The SQLite and Postgres clients
 * are generated from identical models but are distinct TypeScript types, so the store is
 * written against this structural subset; create-store.ts assigns each dialect's client to
 * it, which makes the compiler check that both really provide it.
 */

type Order = 'asc' | 'desc';

/*
 * The records as the generated clients read and write them: the rows of types.ts, where
 * the database's type is wider (a status is any text, the rollup's sums are BIGINT).
 */
export type AccountRecord = AccountRow;
export type ApiKeyRecord = Omit<ApiKeyRow, 'status'> & { status: string };
export type UsageKeyRecord = UsageKeyRow;
export type UsageDailyRecord = Omit<UsageDailyRow, 'promptTokens' | 'completionTokens' | 'cachedTokens' | 'cacheWriteTokens' | 'cacheWrite1hTokens' | 'reasoningTokens' | 'costNanoUsd' | 'costFemtoRemainder'> & {
  promptTokens: bigint;
  completionTokens: bigint;
  cachedTokens: bigint;
  cacheWriteTokens: bigint;
  cacheWrite1hTokens: bigint;
  reasoningTokens: bigint;
  costNanoUsd: bigint;
  costFemtoRemainder: bigint;
};
export type DashboardSessionRecord = DashboardSessionRow;
export type LoginTokenRecord = LoginTokenRow;

export type ApiKeyPatch = Partial<Pick<ApiKeyRecord, 'name' | 'status' | 'blocked' | 'rpm' | 'tpm' | 'revokedAt'>> & {
  updatedAt: Date;
};

/** What an interactive transaction callback gets. */
export interface GatewayDbTransaction {
  usageKey: {
    deleteMany(args: { where: { accountId: string } }): Promise<{ count: number }>;
    create(args: { data: UsageKeyRecord }): Promise<UsageKeyRecord>;
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
    create(args: { data: ApiKeyRecord }): Promise<ApiKeyRecord>;
    findUnique(args: { where: { id: string } | { keyHash: string } }): Promise<ApiKeyRecord | null>;
    findMany(args: {
      where: { accountId: string } | { updatedAt: { gte: Date } };
      orderBy: Array<{ createdAt: Order } | { name: Order } | { updatedAt: Order } | { id: Order }>;
    }): Promise<ApiKeyRecord[]>;
    update(args: { where: { id: string }; data: ApiKeyPatch }): Promise<ApiKeyRecord>;
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
