-- Usage breakdown (docs/pricing.md), SQLite. Must match prisma/sqlite/schema.prisma; test/db checks it.
-- Cached, cache-written (5-minute and 1-hour) and reasoning tokens of each request, parts of
-- its prompt and completion tokens, and their sums in the daily rollup. Rows stored before this
-- migration get 0 for each (their spend is unchanged: they were priced when recorded).

ALTER TABLE "usage_events" ADD COLUMN "cached_tokens" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "usage_events" ADD COLUMN "cache_write_tokens" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "usage_events" ADD COLUMN "cache_write_1h_tokens" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "usage_events" ADD COLUMN "reasoning_tokens" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "usage_daily" ADD COLUMN "cached_tokens" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "usage_daily" ADD COLUMN "cache_write_tokens" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "usage_daily" ADD COLUMN "cache_write_1h_tokens" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "usage_daily" ADD COLUMN "reasoning_tokens" BIGINT NOT NULL DEFAULT 0;
