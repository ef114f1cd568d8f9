import { describe, expect, it } from 'vitest';
import { useCliGateway } from './cli-harness';

/** docs/cli.md: the model-gateway command, against the database a running gateway uses. */
const harness = useCliGateway();
const { cli, json } = harness;

const chat = (key: string) => harness.gw.chat(key, { max_tokens: undefined });

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not within ${withinMs} ms`);
}

// Each command is a fresh Node process through tsx: allow for a loaded CI machine.
describe('model-gateway CLI', { timeout: 90_000 }, () => {
  it('accounts, keys and the usage key, each printed as JSON; changes reach the running server', async () => {
    const account = await json<{ id: string; name: string }>('accounts', 'create', '--name', 'CLI Co');
    expect(Object.keys(account).sort()).toEqual(['id', 'name']);
    expect(account.name).toBe('CLI Co');
    const accounts = await json<{ id: string }[]>('accounts', 'list');
    expect(accounts.some((entry) => entry.id === account.id)).toBe(true);

    const key = await json<Record<string, unknown>>('keys', 'create', '--account', account.id, '--name', 'cli key', '--rpm', '50');
    expect(Object.keys(key).sort()).toEqual([
      'blocked',
      'budget',
      'created_at',
      'expires_at',
      'hint',
      'id',
      'key',
      'models',
      'name',
      'set_by',
      'status',
    ]);
    expect(key).toMatchObject({ name: 'cli key', status: 'ACTIVE', blocked: false, set_by: { rpm: 'operator', tpm: null } });
    const text = String(key.key);
    // Created by another process: works on the running server at once (cache miss -> database).
    const first = await chat(text);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit-requests']).toBe('50');

    const listed = await json<{ id: string; hint: string }[]>('keys', 'list', '--account', account.id);
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(text);

    const limited = await json<{ rpm: number | null; tpm: number | null }>('keys', 'limits', String(key.id), '--rpm', '0', '--tpm', '9000');
    expect(limited).toMatchObject({ rpm: null, tpm: 9000 });

    await json('keys', 'block', String(key.id));
    await eventually(async () => (await chat(text)).status === 403, 1500);
    await json('keys', 'unblock', String(key.id));
    await eventually(async () => (await chat(text)).status === 200, 1500);
    const revoked = await json<{ status: string }>('keys', 'revoke', String(key.id));
    expect(revoked.status).toBe('REVOKED');
    // docs/keys-and-accounts.md: within 1 s on every instance.
    const tookMs = await eventually(async () => (await chat(text)).status === 401, 1500);
    expect(tookMs).toBeLessThan(1000);

    const usageKey = await json<{ key: string }>('usage-key', 'create', '--account', account.id);
    expect(Object.keys(usageKey)).toEqual(['key']);
    expect(usageKey.key).toMatch(/^uk-/);
    const report = await harness.gw.http.get('/v1/usage/keys').set('authorization', `Bearer ${usageKey.key}`);
    expect(report.status).toBe(200);
  });

  it('fails with a one-line message and a non-zero exit', async () => {
    for (const args of [
      ['keys', 'create', '--name', 'x'],
      ['keys', 'revoke', 'key_missing'],
      ['keys', 'create', '--account', 'acct_missing', '--name', 'x'],
      ['keys', 'create', '--account', 'a', '--name', 'x', '--rpm', 'many'],
      ['frobnicate'],
      ['accounts', 'create', '--bogus'],
    ]) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^model-gateway: /);
    }
  });

  it('refuses a bad config file with the path and line of each problem', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const file = join(mkdtempSync(join(tmpdir(), 'gw-cli-')), 'bad.yaml');
    writeFileSync(file, 'providers:\n  p: { type: nope }\nmodels: []\nextra: 1\n');
    const result = await cli('migrate', '--config', file);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`${file}:2:`);
    expect(result.stderr).toContain(`${file}:4:`);
  });

  it('migrate is idempotent', async () => {
    const result = await json<{ applied: string[] }>('migrate');
    expect(result.applied).toEqual([]);
  });
});
