import { toBudgetColumn } from './budget-column';
import { dailyUsageThroughPrisma, type DailyUsageQuery } from './daily-usage';
import type { KeyDayUsageQuery } from './key-day-usage';
import { modelUsageThroughPrisma } from './model-usage';
import { requestLogThroughPrisma } from './request-log-store';
import { spendOfDaysThroughPrisma } from './spend-of-days';
import { ACCOUNT_CEILINGS, REPORT_KEY_COLUMNS, type GatewayDb, type ReportKeyReader } from './gateway-db';
import { NOTHING_SET, toAccountRow, toApiKeyRow, toAuditEntryRow, toKeyStatus, toModelsColumn, toSetByColumns } from './rows';
import type { Store } from './types';
import type { UsageWriter } from './usage-writer';

export interface PrismaStoreOptions {
  kind: Store['kind'];
  /** Stamps `updatedAt`; injectable so tests control it. */
  now?: () => Date;
  /** The report's rollup read; default a raw query through the client (Postgres passes the pg pool's). */
  dailyUsage?: DailyUsageQuery;
  /** The report's read grouped by key, through the driver (key-day-usage.ts). */
  keyDayUsage: KeyDayUsageQuery;
  /** recordUsage's batch write, through the driver (usage-writer.ts); closed with the store. */
  usageWriter: UsageWriter;
  /** Releases what the client does not own (e.g. a pg pool); runs after `$disconnect` and the usage writer's close. */
  onClose?: () => Promise<void>;
}

/**
 * Prisma's interactive-transaction defaults (2 s to start, 5 s to finish) are too tight
 * for a transaction waiting on SQLite's write lock (busy timeout 10 s).
 */
const WRITE_TRANSACTION = { maxWait: 10_000, timeout: 30_000 };

/** Prisma's "record to update not found". */
const RECORD_NOT_FOUND = 'P2025';

/** Every key read carries its account's ceilings. */
const WITH_CEILINGS = { include: { account: ACCOUNT_CEILINGS } } as const;

/** The Store on a Prisma client of either dialect. */
export function createPrismaStore(db: GatewayDb, options: PrismaStoreOptions): Store {
  const now = options.now ?? (() => new Date());
  const dailyUsage = options.dailyUsage ?? dailyUsageThroughPrisma(db);

  return {
    kind: options.kind,

    async createAccount(input) {
      const data = {
        id: input.id,
        name: input.name,
        createdAt: input.createdAt,
        rpm: input.rpm ?? null,
        tpm: input.tpm ?? null,
        models: toModelsColumn(input.models ?? null),
        budget: toBudgetColumn(input.budget ?? null),
      };
      return toAccountRow(await db.account.create({ data }));
    },

    async updateAccount(id, patch) {
      const data = {
        ...pick(patch, ['name', 'rpm', 'tpm']),
        ...(patch.models === undefined ? {} : { models: toModelsColumn(patch.models) }),
        ...(patch.budget === undefined ? {} : { budget: toBudgetColumn(patch.budget) }),
      };
      const ceilingsChanged =
        patch.rpm !== undefined || patch.tpm !== undefined || patch.models !== undefined || patch.budget !== undefined;
      try {
        const record = await db.$transaction(async (transaction) => {
          const updated = await transaction.account.update({ where: { id }, data });
          if (ceilingsChanged) await transaction.apiKey.updateMany({ where: { accountId: id }, data: { updatedAt: now() } });
          return updated;
        }, WRITE_TRANSACTION);
        return toAccountRow(record);
      } catch (error) {
        if (isPrismaError(error, RECORD_NOT_FOUND)) return null;
        throw error;
      }
    },

    async listAccounts() {
      return (await db.account.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toAccountRow);
    },

    async getAccount(id) {
      const record = await db.account.findUnique({ where: { id } });
      return record === null ? null : toAccountRow(record);
    },

    async createApiKey(input) {
      const record = await db.apiKey.create({
        data: {
          id: input.id,
          accountId: input.accountId,
          name: input.name,
          keyHash: input.keyHash,
          hint: input.hint,
          status: 'ACTIVE',
          blocked: false,
          rpm: input.rpm,
          tpm: input.tpm,
          createdAt: input.createdAt,
          revokedAt: null,
          updatedAt: now(),
          models: toModelsColumn(input.models ?? null),
          expiresAt: input.expiresAt ?? null,
          blockedBy: null,
          budget: toBudgetColumn(input.budget ?? null),
          ...toSetByColumns(input.setBy ?? NOTHING_SET),
        },
        ...WITH_CEILINGS,
      });
      return toApiKeyRow(record);
    },

    async getApiKey(id) {
      const record = await db.apiKey.findUnique({ where: { id }, ...WITH_CEILINGS });
      return record === null ? null : toApiKeyRow(record);
    },

    async findApiKeyByHash(keyHash) {
      const record =
        (await db.apiKey.findUnique({ where: { keyHash }, ...WITH_CEILINGS })) ??
        (await db.apiKey.findUnique({ where: { previousKeyHash: keyHash }, ...WITH_CEILINGS }));
      return record === null ? null : toApiKeyRow(record);
    },

    async listApiKeys(accountId) {
      const records = await db.apiKey.findMany({
        where: { accountId },
        orderBy: [{ createdAt: 'asc' }, { name: 'asc' }, { id: 'asc' }],
        ...WITH_CEILINGS,
      });
      return records.map(toApiKeyRow);
    },

    async listReportKeys(accountId) {
      // Not listApiKeys: its account ceilings and settings cost several times as much to read.
      const records = await (db.apiKey as unknown as ReportKeyReader).findMany({
        where: { accountId },
        // listApiKeys's order, so that keys the report's sort finds equal keep it.
        orderBy: [{ createdAt: 'asc' }, { name: 'asc' }, { id: 'asc' }],
        select: REPORT_KEY_COLUMNS,
      });
      return records.map((record) => ({ ...record, status: toKeyStatus(record.status) }));
    },

    async updateApiKey(id, patch) {
      try {
        const record = await db.apiKey.update({
          where: { id },
          // Only the listed fields: a caller's object may carry more at runtime.
          data: {
            ...pick(patch, [
              'name',
              'status',
              'blocked',
              'rpm',
              'tpm',
              'revokedAt',
              'expiresAt',
              'blockedBy',
              'keyHash',
              'hint',
              'previousKeyHash',
              'previousKeyExpiresAt',
            ]),
            ...(patch.models === undefined ? {} : { models: toModelsColumn(patch.models) }),
            ...(patch.budget === undefined ? {} : { budget: toBudgetColumn(patch.budget) }),
            ...(patch.setBy === undefined ? {} : toSetByColumns(patch.setBy)),
            updatedAt: now(),
          },
          ...WITH_CEILINGS,
        });
        return toApiKeyRow(record);
      } catch (error) {
        if (isPrismaError(error, RECORD_NOT_FOUND)) return null;
        throw error;
      }
    },

    async apiKeysChangedSince(since) {
      const records = await db.apiKey.findMany({
        where: { updatedAt: { gte: since } },
        orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
        ...WITH_CEILINGS,
      });
      return records.map(toApiKeyRow);
    },

    async setUsageKey(input) {
      return db.$transaction(async (transaction) => {
        // Delete then insert (not update): the id may change, and the old hash must be gone
        // in the same commit that makes the new one findable.
        await transaction.usageKey.deleteMany({ where: { accountId: input.accountId } });
        return transaction.usageKey.create({ data: { ...input, updatedAt: now() } });
      }, WRITE_TRANSACTION);
    },

    async getUsageKeyByAccount(accountId) {
      return db.usageKey.findUnique({ where: { accountId } });
    },

    async findUsageKeyByHash(keyHash) {
      return db.usageKey.findUnique({ where: { keyHash } });
    },

    async usageKeysChangedSince(since) {
      return db.usageKey.findMany({
        where: { updatedAt: { gte: since } },
        orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
      });
    },

    async recordUsage(events, requests = []) {
      if (events.length === 0 && requests.length === 0) return;
      // The writer also moves each key's last use (docs/operator-controls.md), in the same
      // transaction: one write per key and batch, never per request; and writes the request
      // log's records (docs/request-log.md).
      await options.usageWriter.write(events, requests);
    },

    async appendAudit(entry) {
      await db.auditEntry.create({ data: entry });
    },

    async listAudit(query) {
      const where: Parameters<GatewayDb['auditEntry']['findMany']>[0]['where'] = {};
      if (query.accountId !== undefined) where.accountId = query.accountId;
      if (query.before) where.OR = [{ at: { lt: query.before.at } }, { at: query.before.at, id: { lt: query.before.id } }];
      const records = await db.auditEntry.findMany({ where, orderBy: [{ at: 'desc' }, { id: 'desc' }], take: query.limit });
      return records.map(toAuditEntryRow);
    },

    dailyUsage,

    keyDayUsage: options.keyDayUsage,

    spendOfDays: (scope, startDay, endDay) => spendOfDaysThroughPrisma(db, scope, startDay, endDay),

    modelUsage: (accountId, startDay, endDay) => modelUsageThroughPrisma(db, accountId, startDay, endDay),

    async countUsageEvents(filter = {}) {
      return db.usageEvent.count({
        where: filter.accountId === undefined ? {} : { accountId: filter.accountId },
      });
    },

    async pruneUsageEvents(before) {
      const { count } = await db.usageEvent.deleteMany({ where: { receivedAt: { lt: before } } });
      return count;
    },

    ...requestLogThroughPrisma(db),

    async createDashboardSession(input) {
      return db.dashboardSession.create({ data: input });
    },

    async findDashboardSessionByHash(tokenHash) {
      return db.dashboardSession.findUnique({ where: { tokenHash } });
    },

    async deleteDashboardSession(tokenHash) {
      await db.dashboardSession.deleteMany({ where: { tokenHash } });
    },

    async createLoginToken(input) {
      return db.loginToken.create({ data: { ...input, usedAt: null } });
    },

    async consumeLoginToken(tokenHash, at) {
      // One conditional UPDATE: of two concurrent sign-ins with the same link, one wins.
      const { count } = await db.loginToken.updateMany({
        where: { tokenHash, usedAt: null, expiresAt: { gt: at } },
        data: { usedAt: at },
      });
      if (count === 0) return null;
      return db.loginToken.findUnique({ where: { tokenHash } });
    },

    async pruneDashboardCredentials(before) {
      const sessions = await db.dashboardSession.deleteMany({ where: { expiresAt: { lt: before } } });
      const tokens = await db.loginToken.deleteMany({ where: { expiresAt: { lt: before } } });
      return sessions.count + tokens.count;
    },

    async listDeploymentStates() {
      return db.deploymentState.findMany({ orderBy: { id: 'asc' } });
    },

    async setDeploymentEnabled(id, enabled, at) {
      return db.deploymentState.upsert({ where: { id }, create: { id, enabled, updatedAt: at }, update: { enabled, updatedAt: at } });
    },

    async ping() {
      await db.$queryRawUnsafe('SELECT 1');
    },

    async close() {
      await db.$disconnect();
      await options.usageWriter.close();
      await options.onClose?.();
    },
  };
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const result: Partial<Pick<T, K>> = {};
  for (const key of keys) {
    if (source[key] !== undefined) result[key] = source[key];
  }
  return result;
}

function isPrismaError(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
