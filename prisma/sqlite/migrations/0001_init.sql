-- Initial schema (SQLite). Must match prisma/sqlite/schema.prisma; test/db checks it.
-- Column types follow what Prisma expects on SQLite: DateTime = DATETIME holding
-- ISO 8601 text as the better-sqlite3 adapter writes it ("2026-11-20T08:15:30.123+00:00").

CREATE TABLE "accounts" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL
);

CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'ACTIVE',
    "blocked" BOOLEAN NOT NULL DEFAULT false,
    "rpm" INTEGER,
    "tpm" INTEGER,
    "created_at" DATETIME NOT NULL,
    "revoked_at" DATETIME,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");
CREATE INDEX "api_keys_account_id_created_at_idx" ON "api_keys"("account_id", "created_at");
CREATE INDEX "api_keys_updated_at_idx" ON "api_keys"("updated_at");

CREATE TABLE "usage_keys" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "account_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "usage_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "usage_keys_account_id_key" ON "usage_keys"("account_id");
CREATE UNIQUE INDEX "usage_keys_key_hash_key" ON "usage_keys"("key_hash");
CREATE INDEX "usage_keys_updated_at_idx" ON "usage_keys"("updated_at");

CREATE TABLE "usage_events" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "request_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "received_at" DATETIME NOT NULL,
    "prompt_tokens" INTEGER NOT NULL,
    "completion_tokens" INTEGER NOT NULL,
    "cost_femto_usd" BIGINT NOT NULL,
    "estimated" BOOLEAN NOT NULL,
    "stream" BOOLEAN NOT NULL,
    "status" INTEGER NOT NULL,
    "error_code" TEXT,
    "latency_ms" INTEGER NOT NULL
);
CREATE INDEX "usage_events_account_id_day_idx" ON "usage_events"("account_id", "day");
CREATE INDEX "usage_events_received_at_idx" ON "usage_events"("received_at");

CREATE TABLE "usage_daily" (
    "key_id" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "requests" INTEGER NOT NULL,
    "prompt_tokens" BIGINT NOT NULL,
    "completion_tokens" BIGINT NOT NULL,
    "cost_nano_usd" BIGINT NOT NULL,
    "cost_femto_remainder" BIGINT NOT NULL,
    PRIMARY KEY ("key_id", "day")
);
CREATE INDEX "usage_daily_account_id_day_idx" ON "usage_daily"("account_id", "day");
