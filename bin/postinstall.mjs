// `npm install`'s build step (README "Set up"). In a clone (the sources and the devDependencies are
// there): generate the Prisma clients, build the server bundle, the optional malloc_trim addon and
// the dashboard. In the published package, whose dist/ and dashboard/dist were built when it was
// packed (`prepack`) and which installs without its build tools: build only what is missing, the
// addon, which is per platform and Node ABI (with npm's own node-gyp when the package's is absent).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const inClone = existsSync(path.join(root, 'server', 'cli', 'main.ts'));

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
const runScript = (name) => run(npm[0], [...npm[1], 'run', '-s', name]);

if (inClone) {
  run('bash', ['prisma/generate.sh']);
  runScript('build:server');
  runScript('build:native');
  if (existsSync(path.join(root, 'dashboard', 'vite.config.ts'))) runScript('build:dashboard');
} else {
  if (!existsSync(path.join(root, 'dist', 'model-gateway.js'))) {
    console.error('model-gateway: dist/model-gateway.js is missing: this package was packed without `npm run build`.');
    process.exit(1);
  }
  run(process.execPath, [path.join(root, 'server', 'native', 'malloc-trim', 'build.mjs')]);
}
