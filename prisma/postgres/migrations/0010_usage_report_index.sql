-- The usage report's index (docs/performance.md, "Usage writes and the usage report") (PostgreSQL).
-- Must match prisma/postgres/schema.prisma; test/db checks it.
-- The rollup's index by account and day also carries every column the report reads, so the
-- report's read of an account's range is an index-only scan of exactly that range: no visit of
-- the table's pages, which hold every other account's rows as well. Same name and key columns
-- as before (schema.prisma's @@index([accountId, day])); Prisma has no syntax for INCLUDE.

DROP INDEX "usage_daily_account_id_day_idx";
CREATE INDEX "usage_daily_account_id_day_idx" ON "usage_daily"("account_id", "day")
    INCLUDE ("key_id", "requests", "prompt_tokens", "completion_tokens", "cost_nano_usd", "cost_femto_remainder");
