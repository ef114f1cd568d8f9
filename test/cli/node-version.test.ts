import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPOSITORY } from '../helpers/serve-process';

/** A Node.js older than the supported lines, where the machine has one (Debian's Node 20 here). */
const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((candidate) => {
  if (!existsSync(candidate)) return false;
  const major = Number(execFileSync(candidate, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim());
  return major < 22;
});

describe.skipIf(OLD_NODE === undefined)('the command on an unsupported Node.js', () => {
  it('refuses in one line naming the supported lines, before loading anything', () => {
    const result = spawnSync(OLD_NODE as string, ['bin/model-gateway.js', 'serve'], { cwd: REPOSITORY, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^model-gateway needs Node\.js 22\.13 or newer on the 22 line, or 24 or newer; this is Node\.js \d+\.\d+\.\d+\.\n$/,
    );
  });

  it('stops the test runner in one line before any test runs, instead of a crashed worker', () => {
    const vitest = `${REPOSITORY}node_modules/vitest/vitest.mjs`;
    const result = spawnSync(OLD_NODE as string, [vitest, 'run', 'test/cli/serving-flags.test.ts'], {
      cwd: REPOSITORY,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /The test suite needs Node\.js 22\.13 or newer on the 22 line, or 24 or newer; this is Node\.js \d+\.\d+\.\d+\./,
    );
  });
});
