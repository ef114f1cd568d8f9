-- The usage report's row text (docs/performance.md, "Usage writes and the usage report") (SQLite).
-- Must match prisma/sqlite/schema.prisma; test/db checks it.
-- Each rollup row carries itself as the text the usage report reads ("<length of the key id>,
-- <key id>,<day>,<requests>,<prompt tokens>,<completion tokens>,<nano-dollars>,<femto
-- remainder>"): a virtual column, computed by SQLite when a row is written into the index that
-- holds it. The report's read then joins the texts of its range from that index alone, one
-- text for the whole range instead of seven values a row made into JavaScript values. The
-- index keeps the cost columns (a budget's spend of an account).

ALTER TABLE "usage_daily" ADD COLUMN "report_row" TEXT GENERATED ALWAYS AS (
    length("key_id") || ',' || "key_id" || ',' || "day" || ',' || "requests" || ','
    || "prompt_tokens" || ',' || "completion_tokens" || ',' || "cost_nano_usd" || ','
    || "cost_femto_remainder"
) VIRTUAL;

DROP INDEX "usage_daily_account_id_day_idx";
CREATE INDEX "usage_daily_account_id_day_idx" ON "usage_daily"("account_id", "day", "cost_nano_usd", "cost_femto_remainder", "report_row");
