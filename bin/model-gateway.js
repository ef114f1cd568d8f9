#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node --no-allocation-site-pretenuring --expose-gc
// The `model-gateway` command. It runs dist/model-gateway.js, the server bundled into one
// file by `npm run build` (also run by `npm install`), when that bundle is at least as new
// as every source file: it starts faster and uses ~100 MB less memory than compiling the
// TypeScript on the fly. Otherwise (a source edited since, or no bundle) the sources run
// through tsx's loader (a devDependency), so an edit never runs stale code. MODEL_GATEWAY_FROM_SOURCE=1
// forces the sources. The published package carries the bundle and no sources: it runs the bundle.
// The shebang gives the serving process's V8 options and malloc settings
// (server/cli/serving-flags.ts); `npm start` gives them too.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { unsupportedNodeMessage } from './node-version.js';

const unsupported = unsupportedNodeMessage('model-gateway');
if (unsupported) {
  process.stderr.write(`${unsupported}\n`);
  process.exit(1);
}

const root = fileURLToPath(new URL('../', import.meta.url));
const bundle = path.join(root, 'dist', 'model-gateway.js');

function newestSourceMtime(directory) {
  if (!existsSync(directory)) return 0;
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMtime(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function bundleIsCurrent() {
  if (process.env.MODEL_GATEWAY_FROM_SOURCE === '1' || !existsSync(bundle)) return false;
  const built = statSync(bundle).mtimeMs;
  return ['server', 'contract', 'openapi'].every((directory) => newestSourceMtime(path.join(root, directory)) <= built);
}

let main;
if (bundleIsCurrent()) {
  // No source maps unless the operator asks (NODE_OPTIONS=--enable-source-maps, README "Set up"):
  // Node reads the stack of every socket destroyed with an error (a client that leaves), and with
  // them on, the first such read parses the bundle's map and keeps it (docs/performance.md, "Memory").
  ({ main } = await import('../dist/model-gateway.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../server/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
// The command is done and has closed what it opened; a socket a library is still closing gets
// a moment, never a hang: a start that failed must end the process (README "Deployment").
setTimeout(() => process.exit(), 3_000).unref();
