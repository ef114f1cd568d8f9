import Database from 'better-sqlite3';
import { SQLITE_CONNECTION_PRAGMAS } from './database-url';
import { SQLITE_KEY_DAY_USAGE_SQL, visitSqliteText, type KeyDayUsageQuery } from './key-day-usage';
import { INSERT_REQUEST_SQLITE_SQL, requestValues } from './request-log-insert';
import type { RequestLogRow, UsageEventRow } from './types';
import { eventValues, INSERT_EVENT_SQLITE_SQL, sqliteTimestamp } from './usage-events-insert';
import { aggregateUsage, rollupValues, UPSERT_ROLLUP_SQLITE_SQL } from './usage-rollup';
import type { UsageWriter } from './usage-writer';

/**
 * Store.recordUsage on SQLite: a dedicated better-sqlite3 connection to the store's file, its
 * three statements prepared once, each batch one IMMEDIATE transaction (the write lock waited
 * for and taken at BEGIN, never a read snapshot to upgrade half-way, which SQLite refuses
 * without waiting). Of the CPU a batch costs, what remains is mostly SQLite's own work on
 * the rows and their indexes.
 */
export function openSqliteUsageWriter(filename: string, busyTimeoutMs: number): UsageWriter & { keyDayUsage: KeyDayUsageQuery } {
  const db = new Database(filename, { timeout: busyTimeoutMs });
  try {
    for (const pragma of SQLITE_CONNECTION_PRAGMAS) db.pragma(pragma);
    const insertEvent = db.prepare<unknown[]>(INSERT_EVENT_SQLITE_SQL);
    const upsertRollup = db.prepare<unknown[]>(UPSERT_ROLLUP_SQLITE_SQL);
    const insertRequest = db.prepare<unknown[]>(INSERT_REQUEST_SQLITE_SQL);
    // docs/operator-controls.md: a key's last use moves with the usage batches, never back.
    const markKeyUsed = db.prepare<[string, string, string]>(
      'UPDATE "api_keys" SET "last_used_at" = ? WHERE "id" = ? AND ("last_used_at" IS NULL OR "last_used_at" < ?)',
    );
    // The usage report's read (key-day-usage.ts) runs here too: synchronous like the batches,
    // it never interleaves with one.
    const keyDayText = db.prepare<[string, string, string], string | null>(SQLITE_KEY_DAY_USAGE_SQL).pluck();
    const writeBatch = db.transaction((events: readonly UsageEventRow[], requests: readonly RequestLogRow[]) => {
      // Only what this transaction inserted goes into the rollup: an event already stored
      // (its batch committed before, but the acknowledgement was lost) was counted then.
      // `changes` is 0 for a row skipped by ON CONFLICT DO NOTHING, also for an id repeated
      // within the batch.
      const inserted: UsageEventRow[] = [];
      for (const event of events) {
        if (insertEvent.run(...eventValues(event, 'sqlite')).changes > 0) inserted.push(event);
      }
      for (const row of aggregateUsage(inserted)) upsertRollup.run(...rollupValues(row));
      const lastUsed = new Map<string, Date>();
      for (const event of events) {
        const seen = lastUsed.get(event.keyId);
        if (seen === undefined || seen < event.receivedAt) lastUsed.set(event.keyId, event.receivedAt);
      }
      for (const [keyId, at] of lastUsed) {
        const text = sqliteTimestamp(at);
        markKeyUsed.run(text, keyId, text);
      }
      // docs/request-log.md: the request log's records ride in the same transaction.
      for (const request of requests) insertRequest.run(...requestValues(request, 'sqlite'));
    });

    return {
      write: (events, requests) =>
        new Promise<void>((resolve, reject) => {
          // The transaction is synchronous, and runs in an event-loop turn of its own (a
          // setImmediate callback). A transaction of the Prisma connection (setUsageKey) holds
          // the write lock from its first write to COMMIT while it goes on through promise and
          // nextTick callbacks, but never across a turn (its adapter is synchronous too).
          // Started from a promise callback that runs in that window, BEGIN IMMEDIATE would wait
          // the whole busy timeout, the event loop blocked, for a lock that cannot be released
          // before it gives up (test/db/store.test.ts).
          setImmediate(() => {
            try {
              writeBatch.immediate(events, requests);
              resolve();
            } catch (error) {
              // better-sqlite3 has rolled the transaction back.
              reject(error);
            }
          });
        }),
      keyDayUsage: async (accountId, startDay, endDay, visit) =>
        visitSqliteText(keyDayText.get(accountId, startDay, endDay) ?? null, startDay, endDay, visit),
      close: async () => {
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
