import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packagePath } from '../paths';

export type Dialect = 'sqlite' | 'postgres';

export interface MigrationFile {
  /** File name, e.g. `0001_init.sql`; also its key in `_gateway_migrations`. */
  name: string;
  sql: string;
  /** SHA-256 of the text with line endings normalised, so a CRLF checkout is not "changed". */
  checksum: string;
}

export interface AppliedMigration {
  name: string;
  checksum: string;
}

const MIGRATION_NAME = /^\d{4}_[a-z0-9_]+\.sql$/;

/** prisma/<dialect>/migrations of this repository. */
export function defaultMigrationsDirectory(dialect: Dialect): string {
  return packagePath('prisma', dialect, 'migrations');
}

/** The dialect's migration files in apply order (by their numeric prefix). */
export function readMigrationFiles(directory: string): MigrationFile[] {
  return readdirSync(directory)
    .filter((name) => MIGRATION_NAME.test(name))
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(directory, name), 'utf8');
      return { name, sql, checksum: checksum(sql) };
    });
}

export function checksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

/**
 * The files not yet applied, in order. Refuses to go on when a file that was applied has
 * changed since: the database no longer matches what the file says, and silently skipping
 * it would hide that. Applied names this code does not know (a newer release migrated the
 * database) are tolerated, so an older instance can still start during a rolling deploy.
 */
export function pendingMigrations(files: MigrationFile[], applied: AppliedMigration[]): MigrationFile[] {
  const appliedByName = new Map(applied.map((migration) => [migration.name, migration.checksum]));
  for (const file of files) {
    const appliedChecksum = appliedByName.get(file.name);
    if (appliedChecksum !== undefined && appliedChecksum !== file.checksum) {
      throw new Error(
        `Migration ${file.name} was changed after it was applied (checksum ${appliedChecksum} in the database, ` +
          `${file.checksum} on disk). Restore the file and add a new numbered migration instead.`,
      );
    }
  }
  return files.filter((file) => !appliedByName.has(file.name));
}
