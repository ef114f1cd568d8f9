import type { RequestLogRow, UsageEventRow } from './types';

/**
 * Store.recordUsage's batch write, through the database driver rather than Prisma (see
 * usage-events-insert.ts for why): usage-writer-sqlite.ts and usage-writer-postgres.ts.
 */
export interface UsageWriter {
  /** One transaction, with Store.recordUsage's semantics; `events` and `requests` are not both empty. */
  write(events: readonly UsageEventRow[], requests: readonly RequestLogRow[]): Promise<void>;
  /** Releases what the writer holds (SQLite: its connection). */
  close(): Promise<void>;
}
