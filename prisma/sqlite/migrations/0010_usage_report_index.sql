-- The usage report's index (docs/performance.md, "Usage writes and the usage report") (SQLite).
-- Must match prisma/sqlite/schema.prisma; test/db checks it.
-- The rollup's index by account and day also carries every column the report reads, so the
-- report's read of an account's range is a scan of that range of the index alone, with no
-- look-up of each row in the table. Same name and leading columns as before (schema.prisma's
-- @@index([accountId, day])); SQLite has no INCLUDE, so the other columns follow as keys.

DROP INDEX "usage_daily_account_id_day_idx";
CREATE INDEX "usage_daily_account_id_day_idx" ON "usage_daily"("account_id", "day", "key_id", "requests", "prompt_tokens", "completion_tokens", "cost_nano_usd", "cost_femto_remainder");
