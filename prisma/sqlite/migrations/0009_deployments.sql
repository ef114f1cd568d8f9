-- Deployments (docs/routing.md) (SQLite). Must match prisma/sqlite/schema.prisma; test/db checks it.
-- The operator's enable/disable of a deployment, kept across restarts and read by every
-- instance; a deployment without a row is enabled. The deployment that answered each request,
-- on its usage event and its request-log record (NULL on rows stored before this migration).

CREATE TABLE "deployment_states" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "enabled" BOOLEAN NOT NULL,
    "updated_at" DATETIME NOT NULL
);

ALTER TABLE "usage_events" ADD COLUMN "deployment" TEXT;
ALTER TABLE "request_log" ADD COLUMN "deployment" TEXT;
