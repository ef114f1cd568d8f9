import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * Throwaway databases for the db tests: an SQLite file in a temp folder, and a fresh
 * Postgres database `gw_test_<random>` created on the server at TEST_POSTGRES_URL
 * (default: the local trust-auth server). Postgres tests are skipped, with a message,
 * when that server is not reachable; CI provides one.
 */

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function createSqliteDatabase(): TestDatabase {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'gw-db-test-'));
  return {
    url: `file:${path.join(directory, 'gateway.db')}`,
    drop: async () => rmSync(directory, { recursive: true, force: true }),
  };
}

export async function createPostgresDatabase(): Promise<TestDatabase> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** Whether the Postgres server answers; logs why Postgres tests are skipped when it does not. */
export async function isPostgresAvailable(): Promise<boolean> {
  try {
    await withAdminClient((client) => client.query('SELECT 1'));
    return true;
  } catch (error) {
    console.warn(
      `Skipping the Postgres db tests: no server at ${POSTGRES_ADMIN_URL} ` +
        `(${error instanceof Error ? error.message : String(error)}). Set TEST_POSTGRES_URL to run them.`,
    );
    return false;
  }
}

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export type Dialect = 'sqlite' | 'postgres';

export interface DialectUnderTest {
  dialect: Dialect;
  /** false: the suite is registered but skipped (Postgres server not reachable). */
  available: boolean;
  create(): Promise<TestDatabase>;
}

/** Both dialects; SQLite always runs, Postgres when its server answers. */
export async function dialectsUnderTest(): Promise<DialectUnderTest[]> {
  return [
    { dialect: 'sqlite', available: true, create: async () => createSqliteDatabase() },
    { dialect: 'postgres', available: await isPostgresAvailable(), create: createPostgresDatabase },
  ];
}

/** Runs one parameterless query with the raw driver (no Prisma), for checking what is on disk. */
export async function rawQuery<T>(databaseUrl: string, sql: string): Promise<T[]> {
  if (databaseUrl.startsWith('file:')) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(databaseUrl.slice('file:'.length), { readonly: true });
    try {
      db.defaultSafeIntegers(true);
      return db.prepare<[], T>(sql).all();
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}
