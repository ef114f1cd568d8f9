// Build step (npm run build:server): the /docs page's renderer, Scalar's standalone bundle,
// copied from the @scalar/api-reference devDependency to dist/ so the server serves it itself
// (no CDN). A packed or installed gateway carries the copy in dist/ and has no devDependencies:
// then there is nothing to copy, and the copy already there is kept.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = path.join(root, 'dist', 'api-reference', 'standalone.js');
// The package's exports do not include this file: it is found where npm installs the devDependency.
const source = path.join(root, 'node_modules', '@scalar', 'api-reference', 'dist', 'browser', 'standalone.js');
if (existsSync(source)) {
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(source, target);
} else if (!existsSync(target)) {
  process.stderr.write(
    'warning: @scalar/api-reference is not installed: GET /docs will answer 503 until `npm run build` runs with devDependencies.\n',
  );
}
