// Shared by the tests of the model-gateway command (docs/cli.md): a running test gateway, and the
// command run as a fresh Node process against that gateway's database.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/test-gateway';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../bin/model-gateway.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `model-gateway ARGS` against `databaseUrl`, with no config file and no logging; a non-zero exit is returned, not thrown. */
export async function runCli(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, GATEWAY_CONFIG: '', LOG_LEVEL: 'silent', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as CliResult;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The arguments of `keys create` for a key named `k` of the account, with `flags` after them. */
export function keyCreateArgs(accountId: string, ...flags: string[]): string[] {
  return ['keys', 'create', '--account', accountId, '--name', 'k', ...flags];
}

/**
 * A test gateway started before the file's tests and closed after them, and the command run against
 * its database (with `cliEnv` added to the environment). Read `gw` inside tests (it exists from beforeAll on).
 */
export function useCliGateway(options: TestGatewayOptions = {}, cliEnv: Record<string, string> = {}) {
  const harness = {
    gw: undefined as unknown as TestGateway,
    cli: (...args: string[]): Promise<CliResult> => runCli(harness.gw.databaseUrl, args, cliEnv),
    /** Runs the command, expects it to succeed silently on stderr, and parses what it printed. */
    json: async <T>(...args: string[]): Promise<T> => {
      const result = await harness.cli(...args);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as T;
    },
  };
  beforeAll(async () => {
    harness.gw = await startTestGateway(options);
  });
  afterAll(() => harness.gw?.close());
  return harness;
}
