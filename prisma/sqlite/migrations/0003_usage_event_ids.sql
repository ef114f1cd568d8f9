-- Idempotent usage writes (SQLite). Must match prisma/sqlite/schema.prisma; test/db checks it.
-- The gateway gives every usage event an id when it records it; the store inserts with
-- ON CONFLICT ("event_id") DO NOTHING, so a batch retried after a lost COMMIT acknowledgement
-- is neither stored nor added into usage_daily twice.
-- Nullable: rows stored before this migration have no id (SQLite cannot add a NOT NULL column
-- without a default); NULLs never conflict in a unique index, and every write since sets it.

ALTER TABLE "usage_events" ADD COLUMN "event_id" TEXT;
CREATE UNIQUE INDEX "usage_events_event_id_key" ON "usage_events"("event_id");
