import pg from 'pg';
import { pendingMigrations, type AppliedMigration, type MigrationFile } from './migration-files';

/**
 * Session-level advisory lock held while migrating, so two instances starting at once
 * apply each file once: the second waits, then finds nothing pending. An arbitrary
 * constant that only this code uses.
 */
const MIGRATION_LOCK_KEY = 7_204_113_518_062_025n;

/** Applies pending migrations with the raw driver, each file in its own transaction. */
export async function migratePostgres(connectionString: string, files: MigrationFile[]): Promise<string[]> {
  // Bounded: an unreachable host must fail (and be retried by `serve`), not hang the start.
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS "_gateway_migrations" (
        "name" TEXT NOT NULL PRIMARY KEY,
        "checksum" TEXT NOT NULL,
        "applied_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<AppliedMigration>('SELECT "name", "checksum" FROM "_gateway_migrations"');
      const applied: string[] = [];
      for (const file of pendingMigrations(files, rows)) {
        await client.query('BEGIN');
        try {
          // No parameters: the simple query protocol runs a multi-statement file as is.
          await client.query(file.sql);
          await client.query('INSERT INTO "_gateway_migrations" ("name", "checksum") VALUES ($1, $2)', [file.name, file.checksum]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`Migration ${file.name} failed: ${error instanceof Error ? error.message : String(error)}`, {
            cause: error,
          });
        }
        applied.push(file.name);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]);
    }
  } finally {
    await client.end();
  }
}
