import type { Sql } from '@prisma/client/runtime/client';
import type {
  AccountRow,
  ApiKeyPatch as ApiKeyRowPatch,
  ApiKeyRow,
  AuditEntryRow,
  BigintRollupCounts,
  DashboardSessionRow,
  DeploymentStateRow,
  KeySetting,
  LoginTokenRow,
  RequestLogRow,
  UsageDailyRow,
  UsageKeyRow,
} from './types';

/*
 * The part of the generated Prisma clients the store uses. The SQLite and Postgres clients
 * are generated from identical models but are distinct TypeScript types, so the store is
 * written against this structural subset; create-store.ts assigns each dialect's client to
 * it, which makes the compiler check that both really provide it.
 */

type Order = 'asc' | 'desc';

/*
 * The records as the generated clients read and write them: the rows of types.ts, where
 * the database's type is wider (a status, an actor or who blocked is any text, an allow-list
 * is JSON text, the rollup's sums are BIGINT); rows.ts converts them.
 */
export type AccountRecord = Omit<AccountRow, 'models' | 'budget'> & { models: string | null; budget: string | null };
export type ApiKeyRecord = Omit<ApiKeyRow, 'status' | 'models' | 'blockedBy' | 'account' | 'budget' | 'setBy'> &
  SetByColumns & {
    status: string;
    /** JSON array text, or null. */
    models: string | null;
    /** JSON text (rows.ts), or null. */
    budget: string | null;
    blockedBy: string | null;
  };

/** A key's `setBy` (types.ts), one column per setting. */
export type SetByColumns = Record<`${KeySetting}SetBy`, string | null>;

/** The account ceilings read with every key (the request path checks both). */
export const ACCOUNT_CEILINGS = { select: { rpm: true, tpm: true, models: true, budget: true } } as const;
export type AccountCeilingsRecord = Pick<AccountRecord, 'rpm' | 'tpm' | 'models' | 'budget'>;
/** The columns of a key the usage report shows (Store.listReportKeys). */
export const REPORT_KEY_COLUMNS = { id: true, name: true, hint: true, status: true, blocked: true, createdAt: true } as const;
export type ReportKeyRecord = Pick<ApiKeyRecord, keyof typeof REPORT_KEY_COLUMNS>;
export type ApiKeyWithAccountRecord = ApiKeyRecord & { account: AccountCeilingsRecord };
type WithCeilings = { include: { account: typeof ACCOUNT_CEILINGS } };
type ApiKeyListArgs = {
  where: { accountId: string } | { updatedAt: { gte: Date } };
  orderBy: Array<{ createdAt: Order } | { name: Order } | { updatedAt: Order } | { id: Order }>;
} & WithCeilings;

/**
 * The same findMany with `select` (Store.listReportKeys). Both clients' findMany is generic in
 * its arguments, and a second declaration of it beside the one above does not type-check
 * against them, so this one is applied to `db.apiKey` where it is used.
 */
export interface ReportKeyReader {
  findMany(args: {
    where: { accountId: string };
    orderBy: Array<{ createdAt: Order } | { name: Order } | { id: Order }>;
    select: typeof REPORT_KEY_COLUMNS;
  }): Promise<ReportKeyRecord[]>;
}

export type AuditEntryRecord = Omit<AuditEntryRow, 'actor'> & { actor: string };
export type UsageKeyRecord = UsageKeyRow;
/** The rollup row as Prisma reads it: its counts and cost parts as bigint. */
export type UsageDailyRecord = Omit<UsageDailyRow, keyof BigintRollupCounts> & BigintRollupCounts;
export type DashboardSessionRecord = DashboardSessionRow;
export type LoginTokenRecord = LoginTokenRow;

/** The changeable fields of a key (types.ts), as the records hold them, with the time of the change. */
export type ApiKeyPatch = Partial<Pick<ApiKeyRecord, Exclude<keyof ApiKeyRowPatch, 'setBy'>>> &
  Partial<SetByColumns> & {
    updatedAt: Date;
  };

export type AccountPatch = Partial<Pick<AccountRecord, 'name' | 'rpm' | 'tpm' | 'models' | 'budget'>>;

/** The request log's filters (request-log-store.ts). */
export interface RequestLogWhere {
  accountId?: string;
  keyId?: string;
  model?: string;
  status?: number;
  errorCode?: string;
  receivedAt?: { gte?: Date; lt?: Date };
  OR?: Array<{ receivedAt: { lt: Date } } | { receivedAt: Date; id: { lt: string } }>;
}

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
    create(
      args: { data: Omit<ApiKeyRecord, 'lastUsedAt' | 'previousKeyHash' | 'previousKeyExpiresAt'> } & WithCeilings,
    ): Promise<ApiKeyWithAccountRecord>;
    findUnique(
      args: { where: { id: string } | { keyHash: string } | { previousKeyHash: string } } & WithCeilings,
    ): Promise<ApiKeyWithAccountRecord | null>;
    findMany(args: ApiKeyListArgs): Promise<ApiKeyWithAccountRecord[]>;
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
  deploymentState: {
    findMany(args: { orderBy: { id: Order } }): Promise<DeploymentStateRow[]>;
    upsert(args: {
      where: { id: string };
      create: DeploymentStateRow;
      update: Omit<DeploymentStateRow, 'id'>;
    }): Promise<DeploymentStateRow>;
  };
  usageEvent: {
    count(args: { where: { accountId?: string } }): Promise<number>;
    deleteMany(args: { where: { receivedAt: { lt: Date } } }): Promise<{ count: number }>;
  };
  requestLog: {
    findMany(args: {
      where: RequestLogWhere;
      orderBy: Array<{ receivedAt: Order } | { id: Order }>;
      take: number;
    }): Promise<RequestLogRow[]>;
    findUnique(args: { where: { id: string } }): Promise<RequestLogRow | null>;
    deleteMany(args: { where: { receivedAt: { lt: Date } } }): Promise<{ count: number }>;
    updateMany(args: {
      where: { receivedAt: { lt: Date }; OR: Array<{ requestBody: { not: null } } | { responseBody: { not: null } }> };
      data: { requestBody: null; responseBody: null };
    }): Promise<{ count: number }>;
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
