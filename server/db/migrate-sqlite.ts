import Database from 'better-sqlite3';
import { ensureSqliteDirectory } from './database-url';
import { pendingMigrations, type AppliedMigration, type MigrationFile } from './migration-files';

/** How long a second process waits for the first one's migration before giving up. */
const BUSY_TIMEOUT_MS = 60_000;

/**
 * Applies pending migrations with the raw driver. Each file runs in its own
 * `BEGIN IMMEDIATE` transaction, which takes SQLite's write lock up front; the applied set
 * is re-read under that lock, so two processes starting at once apply each file once.
 */
export function migrateSqlite(filename: string, files: MigrationFile[]): string[] {
  ensureSqliteDirectory(filename);
  const db = new Database(filename, { timeout: BUSY_TIMEOUT_MS });
  try {
    // WAL lets readers (the server) run while a writer (the CLI, the usage recorder) commits.
    enableWal(db);
    db.exec(`CREATE TABLE IF NOT EXISTS "_gateway_migrations" (
      "name" TEXT NOT NULL PRIMARY KEY,
      "checksum" TEXT NOT NULL,
      "applied_at" TEXT NOT NULL
    )`);
    const selectApplied = db.prepare<[], AppliedMigration>('SELECT "name", "checksum" FROM "_gateway_migrations"');
    const insertApplied = db.prepare<[string, string, string]>(
      'INSERT INTO "_gateway_migrations" ("name", "checksum", "applied_at") VALUES (?, ?, ?)',
    );

    const applied: string[] = [];
    for (;;) {
      db.exec('BEGIN IMMEDIATE');
      try {
        const next = pendingMigrations(files, selectApplied.all())[0];
        if (next === undefined) {
          db.exec('COMMIT');
          return applied;
        }
        db.exec(next.sql);
        insertApplied.run(next.name, next.checksum, new Date().toISOString());
        db.exec('COMMIT');
        applied.push(next.name);
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    }
  } finally {
    db.close();
  }
}

/**
 * Switching to WAL needs a moment of exclusive access, and SQLite answers SQLITE_BUSY at
 * once (without its busy handler) while another process holds the file, e.g. a second
 * instance migrating at the same time. So retry for up to the busy timeout.
 */
function enableWal(db: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      if (db.pragma('journal_mode', { simple: true }) === 'wal') return;
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 25);
    }
  }
}
