import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository (or installed package) root. Computed from this file, one level below it;
 * the production bundle (dist/model-gateway.js, `npm run build`) sits one level below it too,
 * so the same expression holds there. Every file the gateway reads from its own tree (the
 * bundled catalogue, migrations, the dashboard, package.json) is found from here.
 */
const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));

export const packagePath = (...segments: string[]): string => path.join(PACKAGE_ROOT, ...segments);
