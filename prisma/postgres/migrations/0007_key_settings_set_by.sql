-- Who set a key's settings (PostgreSQL). Must match prisma/postgres/schema.prisma; test/db checks it.
-- docs/operator-controls.md, "Who set a key's settings": 'operator' | 'owner' while the setting
-- is set, else NULL. What the operator set, an owner may tighten but not loosen or remove.

ALTER TABLE "api_keys" ADD COLUMN "rpm_set_by" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "tpm_set_by" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "models_set_by" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "expires_at_set_by" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "budget_set_by" TEXT;

-- Keys from before the setter was kept: their settings count as the operator's (like a block
-- from before blocked_by), so an owner may tighten them and the operator loosens them.
UPDATE "api_keys" SET
  "rpm_set_by" = CASE WHEN "rpm" IS NULL THEN NULL ELSE 'operator' END,
  "tpm_set_by" = CASE WHEN "tpm" IS NULL THEN NULL ELSE 'operator' END,
  "models_set_by" = CASE WHEN "models" IS NULL THEN NULL ELSE 'operator' END,
  "expires_at_set_by" = CASE WHEN "expires_at" IS NULL THEN NULL ELSE 'operator' END,
  "budget_set_by" = CASE WHEN "budget" IS NULL THEN NULL ELSE 'operator' END;
