-- Operator controls (SQLite). Must match prisma/sqlite/schema.prisma; test/db checks it.
-- docs/operator-controls.md: account ceilings and model allow-lists, key expiry, who blocked a
-- key, secret rotation with a grace period, last use, and the audit log.
-- Model allow-lists are JSON arrays of catalogue ids or "prefix*" patterns; NULL = every model.

ALTER TABLE "accounts" ADD COLUMN "rpm" INTEGER;
ALTER TABLE "accounts" ADD COLUMN "tpm" INTEGER;
ALTER TABLE "accounts" ADD COLUMN "models" TEXT;

ALTER TABLE "api_keys" ADD COLUMN "models" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "expires_at" DATETIME;
-- 'operator' | 'owner' while blocked, else NULL.
ALTER TABLE "api_keys" ADD COLUMN "blocked_by" TEXT;
-- Written with the usage batches, never per request; not part of updated_at (the key cache
-- does not need it).
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" DATETIME;
-- The secret replaced by the last rotation, accepted until previous_key_expires_at.
ALTER TABLE "api_keys" ADD COLUMN "previous_key_hash" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "previous_key_expires_at" DATETIME;
CREATE UNIQUE INDEX "api_keys_previous_key_hash_key" ON "api_keys"("previous_key_hash");

CREATE TABLE "audit_log" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "at" DATETIME NOT NULL,
    -- 'operator' or 'owner'
    "actor" TEXT NOT NULL,
    -- The account the change belongs to (NULL for none).
    "account_id" TEXT,
    "action" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    -- JSON of the changed object before and after (never a secret).
    "before" TEXT,
    "after" TEXT,
    "request_id" TEXT
);
CREATE INDEX "audit_log_at_id_idx" ON "audit_log"("at", "id");
CREATE INDEX "audit_log_account_id_at_id_idx" ON "audit_log"("account_id", "at", "id");
