import { afterEach, describe, expect, it } from 'vitest';
import { dialectsUnderTest, rawQuery, type TestDatabase } from './databases';
import { migrateOverRows } from './migrate-over-rows';

/*
 * docs/operator-controls.md, "Who set a key's settings": a database with keys from before the
 * setter was kept migrates to one where every setting holding a value is the operator's and
 * every unset one nobody's.
 */
const MIGRATION = '0007_key_settings_set_by.sql';

const FIXTURE_ROWS = `
INSERT INTO "accounts" ("id", "name", "created_at") VALUES ('acct_old', 'Old', '2026-01-01 00:00:00');
INSERT INTO "api_keys" ("id", "account_id", "name", "key_hash", "hint", "rpm", "tpm", "models", "expires_at", "budget", "created_at", "updated_at")
VALUES
  ('key_everything', 'acct_old', 'everything', '${'a'.repeat(64)}', 'sk-...aaaa', 100, 1000, '["mock-chat"]', '2099-01-01 00:00:00',
   '{"amount_femto_usd":"500000000000000","period":"day","alert_at":[],"set_at":0}', '2026-01-01 00:00:00', '2026-01-01 00:00:00'),
  ('key_nothing', 'acct_old', 'nothing', '${'b'.repeat(64)}', 'sk-...bbbb', NULL, NULL, NULL, NULL, NULL, '2026-01-01 00:00:00', '2026-01-01 00:00:00'),
  ('key_some', 'acct_old', 'some', '${'c'.repeat(64)}', 'sk-...cccc', NULL, 5, NULL, '2099-01-01 00:00:00', NULL, '2026-01-01 00:00:00', '2026-01-01 00:00:00');
`;

interface SetByColumns {
  id: string;
  rpm_set_by: string | null;
  tpm_set_by: string | null;
  models_set_by: string | null;
  expires_at_set_by: string | null;
  budget_set_by: string | null;
}

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`${MIGRATION} on a database with keys (${dialect})`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it('makes the settings existing keys hold the operator’s, and the unset ones nobody’s', async () => {
      const database: TestDatabase = await create();
      cleanups.push(database.drop);
      expect(await migrateOverRows(dialect, database, MIGRATION, FIXTURE_ROWS, cleanups)).toEqual({ applied: [MIGRATION] });
      const rows = await rawQuery<SetByColumns>(
        database.url,
        'SELECT "id", "rpm_set_by", "tpm_set_by", "models_set_by", "expires_at_set_by", "budget_set_by" FROM "api_keys" ORDER BY "id"',
      );
      expect(rows).toEqual([
        {
          id: 'key_everything',
          rpm_set_by: 'operator',
          tpm_set_by: 'operator',
          models_set_by: 'operator',
          expires_at_set_by: 'operator',
          budget_set_by: 'operator',
        },
        { id: 'key_nothing', rpm_set_by: null, tpm_set_by: null, models_set_by: null, expires_at_set_by: null, budget_set_by: null },
        {
          id: 'key_some',
          rpm_set_by: null,
          tpm_set_by: 'operator',
          models_set_by: null,
          expires_at_set_by: 'operator',
          budget_set_by: null,
        },
      ]);
    });
  });
}
