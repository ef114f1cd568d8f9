-- The usage report's row text (docs/performance.md, "Usage writes and the usage report") (PostgreSQL).
-- Must match prisma/postgres/schema.prisma; test/db checks it.
-- Each rollup row carries itself as the text the usage report reads ("<length of the key id>,
-- <key id>,<day>,<requests>,<prompt tokens>,<completion tokens>,<nano-dollars>,<femto
-- remainder>"), computed by Postgres whenever the row is written. The report's read then only
-- joins the texts of its range: formatting seven values per row at read time was two thirds of
-- the read's cost. The index by account and day carries the text (the report's index-only scan)
-- and the cost columns (a budget's spend of an account). Adding a stored column rewrites the
-- table once: usage batches of instances still running wait for it (about 4 s per million rows).

ALTER TABLE "usage_daily" ADD COLUMN "report_row" TEXT GENERATED ALWAYS AS (
    char_length("key_id")::text || ',' || "key_id" || ',' || "day" || ',' || "requests"::text || ','
    || "prompt_tokens"::text || ',' || "completion_tokens"::text || ',' || "cost_nano_usd"::text || ','
    || "cost_femto_remainder"::text
) STORED;

DROP INDEX "usage_daily_account_id_day_idx";
CREATE INDEX "usage_daily_account_id_day_idx" ON "usage_daily"("account_id", "day")
    INCLUDE ("cost_nano_usd", "cost_femto_remainder", "report_row");
