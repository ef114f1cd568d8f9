import { existsSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { unsupportedNodeMessage } from './bin/node-version.js';

// Under another Node line the SQLite driver crashes a test worker, and Vitest then reports only
// a closed channel: say which Node is needed before any test runs.
const unsupportedNode = unsupportedNodeMessage('The test suite');
if (unsupportedNode) throw new Error(unsupportedNode);

/**
 * Left out of the Postgres + Redis pass (`GATEWAY_TEST_DB=postgres`, README "Development"):
 * tests whose subject is not the database or Redis, which that pass would run exactly as the
 * SQLite pass does: the providers' wire formats, SSE, the API reference page and the OpenAPI
 * tools, the packed client, the coding-agent CLIs and frameworks, the dashboard's pure modules.
 */
const STORAGE_INDEPENDENT = [
  'test/providers/**',
  'test/streaming/**',
  'test/openapi/docs-browser.test.ts',
  'test/openapi/openapi-tools.test.ts',
  'test/openapi/openapi-strict.test.ts',
  'test/client/client-package.test.ts',
  'test/agents/**',
  'test/frameworks/**',
  'test/dashboard/usage/**',
];

/**
 * Also left out of that pass: tests that run each database themselves, SQLite and Postgres (with
 * Redis) in any pass, through `dialectsUnderTest()` or their own Postgres databases; the SQLite
 * pass already runs them on both.
 */
const BOTH_DIALECTS_IN_EVERY_PASS = [
  'test/usage/chaos.test.ts',
  'test/usage/report-json.test.ts',
  'test/usage/report-reference.test.ts',
  'test/db/dashboard-store.test.ts',
  'test/db/migrate.test.ts',
  'test/db/operator-controls-store.test.ts',
  'test/db/schema-match.test.ts',
  'test/db/schema-raw-writes.test.ts',
  'test/db/store.test.ts',
  'test/db/store-usage.test.ts',
  'test/db/store-usage-writes.test.ts',
];

/**
 * The framework tests import the Vercel AI SDK and LangChain from their own package
 * (`npm ci --prefix test/frameworks`, done by `.ci/run`); without it they are left out, with a
 * message, as the agent CLI tests skip themselves without their CLIs.
 */
const FRAMEWORKS_INSTALLED = existsSync(new URL('test/frameworks/node_modules/ai/package.json', import.meta.url));
if (!FRAMEWORKS_INSTALLED) console.warn('Leaving out test/frameworks: its packages are not installed (npm ci --prefix test/frameworks).');

const excluded = [
  ...configDefaults.exclude,
  ...(process.env.GATEWAY_TEST_DB === 'postgres' ? [...STORAGE_INDEPENDENT, ...BOTH_DIALECTS_IN_EVERY_PASS] : []),
  ...(FRAMEWORKS_INSTALLED ? [] : ['test/frameworks/**']),
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: excluded,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // As a serving process starts (server/cli/serving-flags.ts): the idle collector's full collection.
    poolOptions: { forks: { execArgv: ['--expose-gc'] } },
    reporters: ['default'],
  },
});
