#!/usr/bin/env bash
# Generates the Prisma clients for both dialects into server/db/generated/{sqlite,postgres}.
# Works offline: `prisma generate` only needs the WebAssembly query compiler, but the CLI
# still resolves a schema-engine binary it never runs, so a stub stands in for it.
# Migrations are not Prisma's: they are the SQL files under prisma/<dialect>/migrations.
set -euo pipefail
cd "$(dirname "$0")/.."

export PRISMA_SCHEMA_ENGINE_BINARY="${PRISMA_SCHEMA_ENGINE_BINARY:-/bin/true}"
export CHECKPOINT_DISABLE=1
export PRISMA_HIDE_UPDATE_MESSAGE=1

for dialect in sqlite postgres; do
  npx --no-install prisma generate --schema "prisma/${dialect}/schema.prisma"
done
