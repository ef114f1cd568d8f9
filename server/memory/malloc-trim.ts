import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The addon's file, relative to this module in the sources (server/memory/) and in the bundle (dist/). */
const ADDON = 'native/malloc-trim/build/Release/malloc_trim.node';
const CANDIDATES = [`../${ADDON}`, `../server/${ADDON}`];

/**
 * glibc's `malloc_trim(0)` through the optional addon (server/native/malloc-trim, built by
 * `npm install` on Linux), or null where it is not built. Returns whether memory went back to
 * the system.
 */
export function loadMallocTrim(base: string = import.meta.url): (() => boolean) | null {
  const require = createRequire(base);
  for (const candidate of CANDIDATES) {
    const file = new URL(candidate, base);
    if (!existsSync(file)) continue;
    try {
      const addon = require(fileURLToPath(file)) as { trim?: unknown };
      if (typeof addon.trim === 'function') return addon.trim as () => boolean;
    } catch {
      // Built for another Node or platform (a copied node_modules): run without it.
    }
  }
  return null;
}
