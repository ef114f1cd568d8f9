import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../server/db/migrate';
import { defaultMigrationsDirectory } from '../../server/db/migration-files';
import { dialectsUnderTest, rawQuery, type TestDatabase } from './databases';

const execFileAsync = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const childScript = fileURLToPath(new URL('./migrate-child.ts', import.meta.url));

interface MigrationRow {
  name: string;
  checksum: string;
}

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`migrate (${dialect})`, () => {
    const shippedFiles = readdirSync(defaultMigrationsDirectory(dialect))
      .filter((name) => name.endsWith('.sql'))
      .sort();
    const cleanups: Array<() => Promise<void>> = [];

    async function freshDatabase(): Promise<TestDatabase> {
      const database = await create();
      cleanups.push(database.drop);
      return database;
    }

    function copyOfMigrations(): string {
      const directory = mkdtempSync(path.join(os.tmpdir(), 'gw-migrations-'));
      cpSync(defaultMigrationsDirectory(dialect), directory, { recursive: true });
      cleanups.push(async () => rmSync(directory, { recursive: true, force: true }));
      return directory;
    }

    async function recorded(url: string): Promise<MigrationRow[]> {
      return rawQuery<MigrationRow>(url, 'SELECT "name", "checksum" FROM "_gateway_migrations" ORDER BY "name"');
    }

    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it('applies the shipped migrations once; a second run applies nothing', async () => {
      const { url } = await freshDatabase();
      expect(shippedFiles.length).toBeGreaterThan(0);
      expect(await migrate(url)).toEqual({ applied: shippedFiles });
      expect(await migrate(url)).toEqual({ applied: [] });
      const rows = await recorded(url);
      expect(rows.map((row) => row.name)).toEqual(shippedFiles);
      for (const row of rows) expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    });

    it('applies each migration once when two callers start at the same time', async () => {
      const { url } = await freshDatabase();
      const results = await Promise.all([migrate(url), migrate(url)]);
      expect(results.flatMap((result) => result.applied).sort()).toEqual(shippedFiles);
      expect((await recorded(url)).map((row) => row.name)).toEqual(shippedFiles);
    });

    it('applies later numbered files in order and refuses an applied file that changed', async () => {
      const { url } = await freshDatabase();
      const directory = copyOfMigrations();
      await migrate(url, { migrationsDirectory: directory });

      writeFileSync(path.join(directory, '9002_second.sql'), 'CREATE TABLE "probe_b" ("id" INTEGER NOT NULL);\n');
      writeFileSync(path.join(directory, '9001_first.sql'), 'CREATE TABLE "probe_a" ("id" INTEGER NOT NULL);\n');
      writeFileSync(path.join(directory, 'README.md'), 'not a migration');
      expect(await migrate(url, { migrationsDirectory: directory })).toEqual({
        applied: ['9001_first.sql', '9002_second.sql'],
      });

      // Line endings alone are not a change (a CRLF checkout of the same file).
      writeFileSync(path.join(directory, '9001_first.sql'), 'CREATE TABLE "probe_a" ("id" INTEGER NOT NULL);\r\n');
      expect(await migrate(url, { migrationsDirectory: directory })).toEqual({ applied: [] });

      writeFileSync(path.join(directory, '9001_first.sql'), 'CREATE TABLE "probe_a" ("id" BIGINT NOT NULL);\n');
      await expect(migrate(url, { migrationsDirectory: directory })).rejects.toThrow(/9001_first\.sql was changed after it was applied/);
    });

    it('rolls a failing migration back completely and does not record it', async () => {
      const { url } = await freshDatabase();
      const directory = copyOfMigrations();
      const file = path.join(directory, '9001_broken.sql');
      writeFileSync(file, 'CREATE TABLE "probe" ("id" INTEGER NOT NULL);\nINSERT INTO "no_such_table" VALUES (1);\n');
      await expect(migrate(url, { migrationsDirectory: directory })).rejects.toThrow(/no_such_table/);
      expect((await recorded(url)).map((row) => row.name)).toEqual(shippedFiles);

      // Had "probe" survived the failed run, creating it again would fail.
      writeFileSync(file, 'CREATE TABLE "probe" ("id" INTEGER NOT NULL);\n');
      expect(await migrate(url, { migrationsDirectory: directory })).toEqual({ applied: ['9001_broken.sql'] });
    });

    it.runIf(dialect === 'sqlite')(
      'applies each migration once when two processes start at the same time',
      async () => {
        const { url } = await freshDatabase();
        const startAt = String(Date.now() + 2_500);
        const runChild = () => execFileAsync(process.execPath, ['--import', 'tsx', childScript, url, startAt], { cwd: repositoryRoot });
        const outputs = await Promise.all([runChild(), runChild()]);
        const applied = outputs.flatMap(({ stdout }) => (JSON.parse(stdout) as { applied: string[] }).applied);
        expect(applied.sort()).toEqual(shippedFiles);
        expect((await recorded(url)).map((row) => row.name)).toEqual(shippedFiles);
      },
      30_000,
    );
  });
}
