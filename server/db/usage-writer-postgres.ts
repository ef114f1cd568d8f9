import type pg from 'pg';
import { RECORD_USAGE_STATEMENT, recordUsageValues } from './usage-batch-postgres';
import type { UsageWriter } from './usage-writer';

/**
 * Store.recordUsage on Postgres: one statement per batch on the store's pg pool (the one the
 * Prisma adapter runs on), which inserts the events, adds the ones inserted into the rollup
 * and moves the keys' last use, atomically (usage-batch-postgres.ts). Any error rejects, with
 * nothing written, and the recorder retries the batch; a statement that committed without its
 * answer reaching us is retried too, and the event ids make that retry insert and count
 * nothing twice.
 */
export function postgresUsageWriter(pool: pg.Pool): UsageWriter {
  return {
    async write(events, requests) {
      const values = recordUsageValues(events, requests);
      // pool.query drops a connection that failed (lost, or ended by the server) instead of
      // handing it out again, and hears its 'error' event meanwhile.
      await pool.query({ ...RECORD_USAGE_STATEMENT, values });
    },
    // The pool is the store's (create-store.ts ends it).
    close: async () => undefined,
  };
}
