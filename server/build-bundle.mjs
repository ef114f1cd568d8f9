// Build step (npm run build:server): the server as one ES module, dist/model-gateway.js. The
// package's runtime `dependencies` stay imports (npm installs them beside it); everything else it
// imports is bundled in: our code, the generated Prisma clients, and Prisma's SQLite driver adapter,
// so that the adapter's `better-sqlite3` is the gateway's own (README "Set up": a published package
// gets no other copy, whatever version the adapter's own package.json names).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const { dependencies } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

await build({
  absWorkingDir: root,
  entryPoints: ['server/cli/main.ts'],
  outfile: 'dist/model-gateway.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // A package marked external keeps its subpaths external too (`@prisma/client/runtime/…`).
  external: Object.keys(dependencies),
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});
