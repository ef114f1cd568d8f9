-- Spend budgets (PostgreSQL). Must match prisma/postgres/schema.prisma; test/db checks it.
-- docs/operator-controls.md: a key's and an account's spend budget, as JSON text
-- {"amount_femto_usd": "<integer text>", "period": "day|week|month|total", "alert_at": [0.8], "set_at": <epoch ms>};
-- NULL = no budget. The spend itself is the ledger's (usage_daily), never stored here.

ALTER TABLE "accounts" ADD COLUMN "budget" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "budget" TEXT;
