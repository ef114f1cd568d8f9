// Builds the optional malloc_trim addon (run by `npm install`/`npm ci` after the bundle):
// Linux only, with the node-gyp that npm ships. Never fails the install: without the addon
// the gateway still returns its idle heap (server.idle_gc), only not what glibc keeps.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const directory = path.dirname(fileURLToPath(import.meta.url));

function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  return candidates.find((candidate) => candidate && existsSync(candidate)) ?? null;
}

if (process.platform === 'linux') {
  const gyp = nodeGyp();
  const result = gyp
    ? spawnSync(process.execPath, [gyp, 'rebuild', '--silent'], { cwd: directory, encoding: 'utf8' })
    : null;
  if (!result || result.status !== 0) {
    const reason = !gyp ? 'node-gyp not found' : (result.stderr || result.error?.message || `exit ${result.status}`).trim().split('\n').slice(-1)[0];
    console.warn(`model-gateway: the optional malloc_trim addon was not built (${reason}); memory after load is returned less completely (README, Operations: Memory).`);
  }
}
