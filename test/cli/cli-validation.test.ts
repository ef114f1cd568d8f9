import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe } from '../helpers/serve-process';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { runCli, type CliResult } from './cli-harness';

/**
 * The CLI checks its input with the admin API's schemas (contract/admin.ts), so it stores
 * the same values on either database, and every refusal is one line (docs/cli.md).
 */
let gw: TestGateway;
let accountId: string;
beforeAll(async () => {
  gw = await startTestGateway();
  accountId = await gw.createAccount();
});
afterAll(() => gw.close());

function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(gw.databaseUrl, args, { PORT: '9123', GATEWAY_PUBLIC_URL: '', ...env });
}

describe('CLI input', { timeout: 120_000 }, () => {
  it.each([
    [
      ['keys', 'create', '--account', 'ACCOUNT', '--name', 'big', '--tpm', '10000000000'],
      'model-gateway: Invalid value for --tpm: Number must be less than or equal to 1000000000\n',
    ],
    [
      ['keys', 'create', '--account', 'ACCOUNT', '--name', 'neg', '--rpm', '-5'],
      'model-gateway: Invalid value for --rpm: Number must be greater than or equal to 1\n',
    ],
    [
      ['keys', 'create', '--account', 'ACCOUNT', '--name', '   '],
      'model-gateway: Invalid value for --name: String must contain at least 1 character(s)\n',
    ],
    [['accounts', 'create', '--name', ''], 'model-gateway: Invalid value for --name: String must contain at least 1 character(s)\n'],
    [['keys', 'limits', 'key_nope', '--tpm', '-1'], 'model-gateway: Invalid value for --tpm: Number must be greater than or equal to 1\n'],
    [['accounts', 'list', '--rpm', '5'], 'model-gateway: accounts list does not take --rpm; run model-gateway --help\n'],
    [['keys', 'list', '--account', 'ACCOUNT', '--frobnicate'], /^model-gateway: Unknown option '--frobnicate'[^\n]*\n$/],
    [['keys', 'create', '--account', 'ACCOUNT', '--name', 'x', '--rpm'], /^model-gateway: Option '--rpm <value>' argument missing\n$/],
  ])('refuses %j with one line', async (args, message) => {
    const result = await cli(args.map((arg) => (arg === 'ACCOUNT' ? accountId : arg)));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    if (typeof message === 'string') expect(result.stderr).toBe(message);
    else expect(result.stderr).toMatch(message);
  });

  it('stores nothing when it refuses, and stores the largest allowed limit', async () => {
    await cli(['keys', 'create', '--account', accountId, '--name', 'too big', '--tpm', '10000000000']);
    const largest = await cli(['keys', 'create', '--account', accountId, '--name', 'largest', '--tpm', '1000000000']);
    expect(largest.code).toBe(0);
    const listed = JSON.parse((await cli(['keys', 'list', '--account', accountId])).stdout) as { name: string; tpm: number | null }[];
    expect(listed.map((key) => key.name)).not.toContain('too big');
    expect(listed.find((key) => key.name === 'largest')?.tpm).toBe(1_000_000_000);
  });

  it('accounts login-link uses GATEWAY_PUBLIC_URL, else localhost and PORT', async () => {
    const configured = await cli(['accounts', 'login-link', accountId], { GATEWAY_PUBLIC_URL: 'https://gateway.example.com/' });
    expect(configured.stderr).toBe('');
    expect(JSON.parse(configured.stdout).url).toMatch(/^https:\/\/gateway\.example\.com\/dashboard\/login#token=lt-/);
    const byPort = await cli(['accounts', 'login-link', accountId], { PORT: '9321' });
    expect(JSON.parse(byPort.stdout).url).toMatch(/^http:\/\/localhost:9321\/dashboard\/login#token=lt-/);
  });
});

it('serve says at start that the admin API and the dashboard are off without GATEWAY_ADMIN_TOKEN', { timeout: 60_000 }, async () => {
  const server = await spawnServe({ DATABASE_URL: gw.databaseUrl, GATEWAY_CONFIG: '' });
  try {
    const deadline = Date.now() + 30_000;
    while (!server.output().includes('gateway listening') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = server
      .output()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    const notice = lines.find((line) => line.msg.includes('GATEWAY_ADMIN_TOKEN'));
    expect(notice?.msg).toBe(
      'GATEWAY_ADMIN_TOKEN is not set: the admin API (/v1/admin) and the dashboard are off; manage accounts and keys with the model-gateway CLI',
    );
    expect(notice?.level).toBe(40);
  } finally {
    server.kill();
    await server.exited;
  }
});
