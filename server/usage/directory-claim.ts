import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * A directory claimed by one live process (docs/usage-durability.md, "One directory, one
 * process"). The claim is an operating-system lock, not a marker file: SQLite's own exclusive
 * lock (POSIX advisory record locks, through better-sqlite3, which the gateway ships for its
 * default database) on `claim.lock` inside the directory, held from the claim until `release`.
 * The kernel drops it when the holder dies, however it dies (SIGKILL, OOM), so a dead holder
 * never blocks anyone; a second connection in the same process is refused too (SQLite tracks
 * its locks per file across connections), so two gateways in one process cannot share one either.
 * `claim.json` beside it names the holder, for the message a refused process prints.
 */

/** Files of the claim itself; journal replay leaves them alone. */
export const CLAIM_FILES: ReadonlySet<string> = new Set(['claim.lock', 'claim.json']);
const LOCK_FILE = 'claim.lock';
const HOLDER_FILE = 'claim.json';
/**
 * The lock connections of the claims this process holds. better-sqlite3 closes a connection that
 * is garbage-collected, which would drop its lock while the claim is still meant to be held; kept
 * here, a claim lasts until `release` (or the process's end) whether or not its caller keeps the object.
 */
const heldLocks = new Set<Database.Database>();

/** Why the holder holds it: a serving process for its lifetime, or another process replaying what a dead one left. */
export type ClaimPurpose = 'serving' | 'adopting';

export interface ClaimHolder {
  pid: number;
  host: string;
  since: string;
  purpose: ClaimPurpose;
}

export interface DirectoryClaim {
  readonly directory: string;
  /** Gives the directory up (idempotent). The process dying does the same. */
  release(): void;
}

export type ClaimAttempt = { claim: DirectoryClaim; holder?: undefined } | { claim?: undefined; holder: ClaimHolder | null };

/** Claims `directory` (created if missing) without waiting: the claim, or who holds it (null when it cannot be read yet). */
export function tryClaimDirectory(directory: string, purpose: ClaimPurpose): ClaimAttempt {
  fs.mkdirSync(directory, { recursive: true });
  const lockFile = path.join(directory, LOCK_FILE);
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting for it.
  const database = new Database(lockFile, { timeout: 0 });
  try {
    // The lock is all this file is for: no rollback journal beside it, and EXCLUSIVE locking
    // mode keeps the write lock from BEGIN EXCLUSIVE until the connection closes.
    database.pragma('locking_mode = EXCLUSIVE');
    database.pragma('journal_mode = MEMORY');
    database.exec('BEGIN EXCLUSIVE');
    database.exec('CREATE TABLE IF NOT EXISTS claim (note TEXT)');
    database.exec('COMMIT');
  } catch (error) {
    database.close();
    if (isBusy(error)) return { holder: readHolder(directory) };
    throw new Error(`cannot lock ${lockFile}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    writeHolder(directory, { pid: process.pid, host: os.hostname(), since: new Date().toISOString(), purpose });
  } catch (error) {
    database.close();
    throw error;
  }
  heldLocks.add(database);
  let held = true;
  return {
    claim: {
      directory,
      release() {
        if (!held) return;
        held = false;
        // Removed while still held: once released, the file may be the next holder's.
        fs.rmSync(path.join(directory, HOLDER_FILE), { force: true });
        heldLocks.delete(database);
        database.close();
      },
    },
  };
}

/** `pid 1234 on host-a (serving since …)`, for messages. */
export function describeHolder(holder: ClaimHolder | null): string {
  if (holder === null) return 'another process';
  return `process ${holder.pid} on ${holder.host} (${holder.purpose} since ${holder.since})`;
}

function readHolder(directory: string): ClaimHolder | null {
  try {
    const value = JSON.parse(fs.readFileSync(path.join(directory, HOLDER_FILE), 'utf8')) as Partial<ClaimHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string' || typeof value.since !== 'string') return null;
    return { pid: value.pid, host: value.host, since: value.since, purpose: value.purpose === 'adopting' ? 'adopting' : 'serving' };
  } catch {
    // Not written yet (the holder claimed a moment ago) or unreadable.
    return null;
  }
}

function writeHolder(directory: string, holder: ClaimHolder): void {
  const file = path.join(directory, HOLDER_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(holder)}\n`);
  fs.renameSync(temporary, file);
}

function isBusy(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}
