// Builds the optional malloc_trim addon (run by `npm install`/`npm ci` after the bundle, or
// `npm run build:native`): Linux only, with node-gyp (the devDependency in a clone, npm's own
// node-gyp in the published package, which installs without devDependencies), as its README
// documents (`node-gyp rebuild` in the addon's folder; it needs python3, make and a C compiler,
// and Node's headers: npm's `nodedir` setting or a download). Never fails the install: without
// the addon the gateway still returns its idle heap (server.idle_gc), only not what glibc keeps
// (docs/performance.md, "Memory").
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const directory = path.dirname(fileURLToPath(import.meta.url));

/** node-gyp's command, from its package's `bin` entry, or the one npm gives its scripts. */
function nodeGyp() {
  try {
    const require = createRequire(import.meta.url);
    const manifest = require.resolve('node-gyp/package.json');
    const { bin } = require('node-gyp/package.json');
    return path.join(path.dirname(manifest), typeof bin === 'string' ? bin : bin['node-gyp']);
  } catch {
    const fromNpm = process.env.npm_config_node_gyp;
    return fromNpm && existsSync(fromNpm) ? fromNpm : null;
  }
}

/**
 * `--nodedir` where the running Node's own headers are installed beside it (Node's binary
 * packages and distributions' `include/node`), unless npm gives one: no download needed then.
 */
function nodeDirectoryOption() {
  if (process.env.npm_config_nodedir) return [];
  const prefix = path.dirname(path.dirname(process.execPath));
  return existsSync(path.join(prefix, 'include', 'node', 'common.gypi')) ? [`--nodedir=${prefix}`] : [];
}

if (process.platform === 'linux') {
  const gyp = nodeGyp();
  const result = gyp
    ? spawnSync(process.execPath, [gyp, 'rebuild', '--silent', ...nodeDirectoryOption()], { cwd: directory, encoding: 'utf8' })
    : null;
  if (!result || result.status !== 0) {
    const reason = !gyp
      ? 'node-gyp is not installed'
      : (result.stderr || result.error?.message || `exit ${result.status}`).trim().split('\n').slice(-1)[0];
    console.warn(
      `model-gateway: the optional malloc_trim addon was not built (${reason}); memory after load is returned less completely (docs/performance.md, "Memory").`,
    );
  }
}
