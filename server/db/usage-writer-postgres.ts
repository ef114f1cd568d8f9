import type pg from 'pg';
import { EVENT_ROWS_PER_STATEMENT, eventValues, insertEventsSql, onlyInserted } from './usage-events-insert';
import { aggregateUsage, ROLLUP_ROWS_PER_STATEMENT, rollupUpsertSql, rollupValues } from './usage-rollup';
import type { UsageWriter } from './usage-writer';

/** Every value as the text Postgres sent (only `event_id`, TEXT, is read). */
const TEXT_TYPES = { getTypeParser: () => (text: string) => text };

/**
 * Store.recordUsage on Postgres: one client of the store's pg pool (the one the Prisma adapter
 * runs on), BEGIN, multi-row INSERTs returning the ids inserted, the rollup upserts of only
 * those events, COMMIT. Any error rolls back and rejects, and the recorder retries the batch;
 * a COMMIT that succeeded without its acknowledgement reaching us is retried too, and the
 * event ids make that retry insert and count nothing twice.
 */
export function postgresUsageWriter(pool: pg.Pool): UsageWriter {
  // The statement text per row count: a batch repeats the same few sizes.
  const insertSql = new Map<number, string>();
  const rollupSql = new Map<number, string>();
  const sqlFor = (cache: Map<number, string>, rows: number, build: (rows: number) => string) => {
    let text = cache.get(rows);
    if (text === undefined) {
      text = build(rows);
      cache.set(rows, text);
    }
    return text;
  };

  return {
    async write(events) {
      const client = await pool.connect();
      // A connection lost while checked out is reported as an 'error' event besides the failed
      // query; unheard, that event would end the process. The pool then must not reuse it.
      let connectionError: Error | undefined;
      const onError = (error: Error) => {
        connectionError = error;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const inserted = new Set<string>();
        for (let start = 0; start < events.length; start += EVENT_ROWS_PER_STATEMENT) {
          const chunk = events.slice(start, start + EVENT_ROWS_PER_STATEMENT);
          const values: unknown[] = [];
          for (const event of chunk) values.push(...eventValues(event, 'postgres'));
          const result = await client.query<[string]>({
            text: sqlFor(insertSql, chunk.length, (rows) => insertEventsSql(rows, 'postgres')),
            values,
            rowMode: 'array',
            types: TEXT_TYPES,
          });
          for (const [eventId] of result.rows) inserted.add(eventId);
        }
        // Only what this transaction inserted goes into the rollup: an event already stored
        // (its batch committed before, but the acknowledgement was lost) was counted then.
        // aggregateUsage orders the rows by key and day, so concurrent batches (several
        // instances) lock the rollup rows they share in the same order instead of deadlocking.
        const increments = aggregateUsage(onlyInserted(events, inserted));
        for (let start = 0; start < increments.length; start += ROLLUP_ROWS_PER_STATEMENT) {
          const chunk = increments.slice(start, start + ROLLUP_ROWS_PER_STATEMENT);
          const values: unknown[] = [];
          for (const row of chunk) values.push(...rollupValues(row, 'postgres'));
          await client.query({ text: sqlFor(rollupSql, chunk.length, (rows) => rollupUpsertSql(rows, 'postgres')), values });
        }
        await client.query('COMMIT');
      } catch (error) {
        // A failed ROLLBACK means the connection is gone (the server ended the transaction) or
        // unusable: the pool drops it instead of handing it out again.
        connectionError ??= await client.query('ROLLBACK').then(
          () => undefined,
          (rollbackError: unknown) => (rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))),
        );
        throw error;
      } finally {
        client.removeListener('error', onError);
        client.release(connectionError);
      }
    },
    // The pool is the store's (create-store.ts ends it).
    close: async () => undefined,
  };
}
