import { parseDatabaseUrl } from './database-url';
import { migratePostgres } from './migrate-postgres';
import { migrateSqlite } from './migrate-sqlite';
import { defaultMigrationsDirectory, readMigrationFiles } from './migration-files';

export interface MigrateOptions {
  /** Folder of numbered `.sql` files; defaults to prisma/<dialect>/migrations. */
  migrationsDirectory?: string;
}

/**
 * Applies the pending SQL migrations of the URL's dialect, in order, each in a
 * transaction, recording them in `_gateway_migrations(name, checksum, applied_at)`.
 * Idempotent and safe to run from several processes at once. The migrations are
 * hand-written SQL, not `prisma migrate` (its schema engine is not available offline);
 * test/db checks that they match schema.prisma.
 */
export async function migrate(databaseUrl: string, options: MigrateOptions = {}): Promise<{ applied: string[] }> {
  const target = parseDatabaseUrl(databaseUrl);
  const files = readMigrationFiles(options.migrationsDirectory ?? defaultMigrationsDirectory(target.kind));
  const applied = target.kind === 'sqlite' ? migrateSqlite(target.filename, files) : await migratePostgres(target.connectionString, files);
  return { applied };
}
