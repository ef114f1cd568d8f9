import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../../server/db/migrate';
import { defaultMigrationsDirectory } from '../../server/db/migration-files';
import type { Dialect, TestDatabase } from './databases';

/**
 * A database migrated up to just before `migration`, then given `rows` (SQL, as a gateway of
 * that time wrote them), then migrated with `migration`: what the migration itself applied is
 * returned. `cleanups` gets what to remove afterwards.
 */
export async function migrateOverRows(
  dialect: Dialect,
  database: TestDatabase,
  migration: string,
  rows: string,
  cleanups: Array<() => Promise<void>>,
): Promise<{ applied: string[] }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'gw-migrations-'));
  cleanups.push(async () => rmSync(directory, { recursive: true, force: true }));
  const shipped = defaultMigrationsDirectory(dialect);
  const earlier = readdirSync(shipped)
    .filter((name) => name.endsWith('.sql') && name < migration)
    .sort();
  for (const file of earlier) copyFileSync(path.join(shipped, file), path.join(directory, file));
  // Named to sort after the last earlier migration and before this one.
  writeFileSync(path.join(directory, `${earlier.at(-1)?.replace(/\.sql$/, '') ?? '0000'}_zz_fixture_rows.sql`), rows);
  await migrate(database.url, { migrationsDirectory: directory });
  copyFileSync(path.join(shipped, migration), path.join(directory, migration));
  return migrate(database.url, { migrationsDirectory: directory });
}
