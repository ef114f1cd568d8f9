import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { dialectsUnderTest, rawQuery, type TestDatabase } from './databases';
import { migrateOverRows } from './migrate-over-rows';

/*
 * docs/performance.md, "Usage writes and the usage report": a database with usage from before
 * the rollup rows carried their report text migrates to one where every existing row has it,
 * and the report's read finds them all, to the digit.
 */
const MIGRATION = '0011_usage_report_row.sql';

const FIXTURE_ROWS = `
INSERT INTO "usage_daily" ("key_id", "day", "account_id", "requests", "prompt_tokens", "completion_tokens", "cost_nano_usd", "cost_femto_remainder")
VALUES
  ('key_plain', '2026-05-01', 'acct_old', 3, 120, 45, 9223372036856, 775806),
  ('k,odd;id \u{1f600}', '2026-05-02', 'acct_old', 1, 7, 0, 0, 999999),
  ('key_other_account', '2026-05-01', 'acct_other', 2, 1, 1, 5, 0);
`;

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`${MIGRATION} on a database with usage (${dialect})`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it('gives every existing rollup row its report text, which the report reads', async () => {
      const database: TestDatabase = await create();
      cleanups.push(database.drop);
      expect(await migrateOverRows(dialect, database, MIGRATION, FIXTURE_ROWS, cleanups)).toEqual({ applied: [MIGRATION] });
      const rows = await rawQuery<{ report_row: string }>(
        database.url,
        'SELECT "report_row" FROM "usage_daily" ORDER BY "day", "account_id"',
      );
      expect(rows.map((row) => row.report_row)).toEqual([
        '9,key_plain,2026-05-01,3,120,45,9223372036856,775806',
        '17,key_other_account,2026-05-01,2,1,1,5,0',
        '10,k,odd;id \u{1f600},2026-05-02,1,7,0,0,999999',
      ]);

      const store = await createStore(database.url);
      cleanups.push(() => store.close());
      const read: unknown[][] = [];
      await store.keyDayUsage('acct_old', '2026-05-01', '2026-05-31', (keyId, dayOffset, requests, prompt, completion, nano, femto) =>
        read.push([keyId, dayOffset, requests, prompt, completion, nano, femto]),
      );
      expect(read.sort()).toEqual([
        ['k,odd;id \u{1f600}', 1, 1, 7, 0, 0, 999999],
        ['key_plain', 0, 3, 120, 45, 9223372036856, 775806],
      ]);
    });
  });
}
