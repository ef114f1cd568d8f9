import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

/**
 * What `npm pack` publishes (README "Set up"): the server bundle and the dashboard built, the
 * migrations, the configuration and the addon's sources, no TypeScript; and every package the
 * bundle imports is a runtime dependency, since the published package installs without its
 * devDependencies. The file list is npm's own (`npm pack --dry-run`, without the build that
 * `prepack` runs: the bundle and dashboard here come from the install's build).
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

it('the tarball holds the built server and dashboard, migrations and configuration, and no TypeScript', async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, maxBuffer: 1 << 26 });
  const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[];
  const files = (packed?.files ?? []).map((file) => file.path);
  for (const expected of [
    'bin/model-gateway.js',
    'bin/node-version.js',
    'bin/postinstall.mjs',
    'dist/model-gateway.js',
    'dist/api-reference/standalone.js',
    'dashboard/dist/index.html',
    'config/default.yaml',
    'prisma/sqlite/migrations/0001_init.sql',
    'prisma/postgres/migrations/0001_init.sql',
    'server/native/malloc-trim/binding.gyp',
    'server/native/malloc-trim/malloc_trim.c',
    'LICENSE',
    'README.md',
  ]) {
    expect(files, expected).toContain(expected);
  }
  expect(files.filter((file) => /\.(ts|tsx)$/.test(file))).toEqual([]);
  expect(files.filter((file) => file.startsWith('test/') || file.startsWith('node_modules/'))).toEqual([]);
});

const PACKAGE_SPECIFIER = /^(?:@[\w.-]+\/)?[\w.:-]+(?:\/[\w./-]*)?$/;

it('every package the server bundle imports is a runtime dependency, and no build tool is one', () => {
  const bundle = readFileSync(path.join(root, 'dist', 'model-gateway.js'), 'utf8');
  // `from` or `import` as keywords, not a method's name (`Buffer.from("…")`).
  const specifiers = new Set([...bundle.matchAll(/(?<![\w$.])(?:from|import)\s*\(?\s*"([^".][^"]*)"/g)].map((match) => match[1] ?? ''));
  // The tokenizer is loaded on first use through createRequire (server/usage/tokenizer.ts).
  specifiers.add('gpt-tokenizer');
  const builtins = new Set(builtinModules);
  const packages = [...specifiers]
    // Only what has a package specifier's shape: the pattern also meets the word "from" in a string.
    .filter((specifier) => PACKAGE_SPECIFIER.test(specifier))
    .filter((specifier) => !specifier.startsWith('node:') && !builtins.has(specifier))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
  expect(packages.length).toBeGreaterThan(10);
  expect([...new Set(packages)].filter((name) => !(name in manifest.dependencies))).toEqual([]);
  for (const tool of ['esbuild', 'vite', 'tsx', 'prisma', 'node-gyp', 'typescript']) {
    expect(manifest.dependencies, tool).not.toHaveProperty(tool);
  }
});

it('no runtime dependency brings a better-sqlite3 of its own: Prisma\u2019s SQLite adapter is bundled and uses the gateway\u2019s', () => {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; dependencies?: Record<string, string> }>;
  };
  const runtimeDependents = Object.entries(lock.packages)
    .filter(([location, entry]) => location !== '' && entry.dev !== true && entry.dependencies?.['better-sqlite3'] !== undefined)
    .map(([location]) => location);
  expect(runtimeDependents).toEqual([]);
  const bundle = readFileSync(path.join(root, 'dist', 'model-gateway.js'), 'utf8');
  expect(bundle).toMatch(/PrismaBetterSqlite3AdapterFactory = class/);
});
