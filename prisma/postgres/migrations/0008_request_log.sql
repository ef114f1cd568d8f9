-- The request log (docs/request-log.md). Must match prisma/postgres/schema.prisma; test/db checks it.
-- One record per model request, refused ones too (no key or account then); written with the
-- usage batches. Bodies only where the operator keeps them, cleared after their own retention.

CREATE TABLE "request_log" (
    "id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL,
    "account_id" TEXT,
    "key_id" TEXT,
    "route" TEXT NOT NULL,
    "requested_model" TEXT,
    "model" TEXT,
    "provider" TEXT,
    "stream" BOOLEAN NOT NULL,
    "status" INTEGER NOT NULL,
    "error_code" TEXT,
    "prompt_tokens" INTEGER NOT NULL,
    "completion_tokens" INTEGER NOT NULL,
    "cached_tokens" INTEGER NOT NULL,
    "cache_write_tokens" INTEGER NOT NULL,
    "cache_write_1h_tokens" INTEGER NOT NULL,
    "reasoning_tokens" INTEGER NOT NULL,
    "cost_femto_usd" BIGINT NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "first_byte_ms" INTEGER,
    "upstream_ms" INTEGER NOT NULL,
    "upstream_attempts" INTEGER NOT NULL,
    "client_ip" TEXT,
    "user_agent" TEXT,
    "session_id" TEXT,
    "request_body" TEXT,
    "response_body" TEXT,
    CONSTRAINT "request_log_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "request_log_received_at_id_idx" ON "request_log"("received_at", "id");
CREATE INDEX "request_log_account_id_received_at_idx" ON "request_log"("account_id", "received_at");
CREATE INDEX "request_log_key_id_received_at_idx" ON "request_log"("key_id", "received_at");
