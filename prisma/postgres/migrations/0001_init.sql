-- Initial schema (PostgreSQL). Must match prisma/postgres/schema.prisma; test/db checks it.
-- DateTime = TIMESTAMP(3) (Prisma's default mapping), always written in UTC by Prisma.

CREATE TABLE "accounts" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'ACTIVE',
    "blocked" BOOLEAN NOT NULL DEFAULT false,
    "rpm" INTEGER,
    "tpm" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL,
    "revoked_at" TIMESTAMP(3),
    "updated_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");
CREATE INDEX "api_keys_account_id_created_at_idx" ON "api_keys"("account_id", "created_at");
CREATE INDEX "api_keys_updated_at_idx" ON "api_keys"("updated_at");

CREATE TABLE "usage_keys" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "hint" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "usage_keys_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "usage_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "usage_keys_account_id_key" ON "usage_keys"("account_id");
CREATE UNIQUE INDEX "usage_keys_key_hash_key" ON "usage_keys"("key_hash");
CREATE INDEX "usage_keys_updated_at_idx" ON "usage_keys"("updated_at");

CREATE TABLE "usage_events" (
    "id" BIGSERIAL NOT NULL,
    "request_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL,
    "prompt_tokens" INTEGER NOT NULL,
    "completion_tokens" INTEGER NOT NULL,
    "cost_femto_usd" BIGINT NOT NULL,
    "estimated" BOOLEAN NOT NULL,
    "stream" BOOLEAN NOT NULL,
    "status" INTEGER NOT NULL,
    "error_code" TEXT,
    "latency_ms" INTEGER NOT NULL,
    CONSTRAINT "usage_events_pkey" PRIMARY KEY ("id")
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
    CONSTRAINT "usage_daily_pkey" PRIMARY KEY ("key_id", "day")
);
CREATE INDEX "usage_daily_account_id_day_idx" ON "usage_daily"("account_id", "day");
