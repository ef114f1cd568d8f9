import Database from 'better-sqlite3';
import { SQLITE_CONNECTION_PRAGMAS } from './database-url';
import type { UsageEventRow } from './types';
import { eventValues, insertEventsSql } from './usage-events-insert';
import { aggregateUsage, rollupUpsertSql, rollupValues } from './usage-rollup';
import type { UsageWriter } from './usage-writer';

/**
 * Store.recordUsage on SQLite: a dedicated better-sqlite3 connection to the store's file, its
 * two statements prepared once, each batch one IMMEDIATE transaction (the write lock waited
 * for and taken at BEGIN, never a read snapshot to upgrade half-way, which SQLite refuses
 * without waiting). Of the CPU a batch costs, what remains is mostly SQLite's own work on
 * the rows and their indexes.
 */
export function openSqliteUsageWriter(filename: string, busyTimeoutMs: number): UsageWriter {
  const db = new Database(filename, { timeout: busyTimeoutMs });
  try {
    for (const pragma of SQLITE_CONNECTION_PRAGMAS) db.pragma(pragma);
    const insertEvent = db.prepare<unknown[]>(insertEventsSql(1, 'sqlite'));
    const upsertRollup = db.prepare<unknown[]>(rollupUpsertSql(1, 'sqlite'));
    const writeBatch = db.transaction((events: readonly UsageEventRow[]) => {
      // Only what this transaction inserted goes into the rollup: an event already stored
      // (its batch committed before, but the acknowledgement was lost) was counted then.
      // `changes` is 0 for a row skipped by ON CONFLICT DO NOTHING, also for an id repeated
      // within the batch.
      const inserted: UsageEventRow[] = [];
      for (const event of events) {
        if (insertEvent.run(...eventValues(event, 'sqlite')).changes > 0) inserted.push(event);
      }
      for (const row of aggregateUsage(inserted)) upsertRollup.run(...rollupValues(row, 'sqlite'));
    });

    return {
      write: (events) =>
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
              writeBatch.immediate(events);
              resolve();
            } catch (error) {
              // better-sqlite3 has rolled the transaction back.
              reject(error);
            }
          });
        }),
      close: async () => {
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
