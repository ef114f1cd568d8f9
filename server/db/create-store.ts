import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { dailyUsageThroughPg } from './daily-usage';
import { keyDayUsageThroughPg } from './key-day-usage';
import { ensureSqliteDirectory, parseDatabaseUrl, SQLITE_CONNECTION_PRAGMAS } from './database-url';
import type { GatewayDb } from './gateway-db';
import { PrismaClient as PostgresPrismaClient } from './generated/postgres/client';
import { PrismaClient as SqlitePrismaClient } from './generated/sqlite/client';
import { createPrismaStore } from './prisma-store';
import type { Store } from './types';
import { postgresUsageWriter } from './usage-writer-postgres';
import { openSqliteUsageWriter } from './usage-writer-sqlite';

export interface CreateStoreOptions {
  /** Clock for `updatedAt` stamps; tests pass a fixed one. */
  now?: () => Date;
  /** Postgres pool size (default 10). */
  maxConnections?: number;
}

/** How long an SQLite write waits for another process's write lock (CLI, second instance). */
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens the database named by a DATABASE_URL (docs/configuration.md): `file:…` is SQLite through
 * better-sqlite3, relative to process.cwd(), its directory created if missing;
 * `postgres://` or `postgresql://` is PostgreSQL through pg. Does not migrate: call
 * `migrate(databaseUrl)` first.
 */
export async function createStore(databaseUrl: string, options: CreateStoreOptions = {}): Promise<Store> {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.kind === 'sqlite') {
    ensureSqliteDirectory(target.filename);
    const db: GatewayDb = new SqlitePrismaClient({
      // iso8601 is the adapter's default; pinned because apiKeysChangedSince compares
      // DATETIME text, which only sorts correctly when every row uses the same format.
      adapter: new PrismaBetterSqlite3({ url: target.filename, timeout: SQLITE_BUSY_TIMEOUT_MS }, { timestampFormat: 'iso8601' }),
    });
    let usageWriter: ReturnType<typeof openSqliteUsageWriter>;
    try {
      // Per connection (the adapter holds one); usage batches get a second connection of
      // their own, with the same pragmas.
      for (const pragma of SQLITE_CONNECTION_PRAGMAS) await db.$queryRawUnsafe(`PRAGMA ${pragma}`);
      usageWriter = openSqliteUsageWriter(target.filename, SQLITE_BUSY_TIMEOUT_MS);
    } catch (error) {
      await db.$disconnect();
      throw error;
    }
    return createPrismaStore(db, { kind: 'sqlite', ...withNow(options), usageWriter, keyDayUsage: usageWriter.keyDayUsage });
  }

  // The store's own pool, shared by the Prisma adapter, the report's raw read (daily-usage.ts)
  // and the usage batch writer.
  const pool = new pg.Pool({ connectionString: target.connectionString, max: options.maxConnections ?? 10 });
  // An idle connection the server closed (restart, network) is dropped by the pool and the
  // next query opens a new one; without a listener the 'error' event would end the process.
  pool.on('error', () => undefined);
  const db: GatewayDb = new PostgresPrismaClient({ adapter: new PrismaPg(pool) });
  return createPrismaStore(db, {
    kind: 'postgres',
    ...withNow(options),
    dailyUsage: dailyUsageThroughPg(pool),
    keyDayUsage: keyDayUsageThroughPg(pool),
    usageWriter: postgresUsageWriter(pool),
    // The adapter leaves a pool it did not create open.
    onClose: () => pool.end(),
  });
}

function withNow(options: CreateStoreOptions): { now?: () => Date } {
  return options.now === undefined ? {} : { now: options.now };
}
