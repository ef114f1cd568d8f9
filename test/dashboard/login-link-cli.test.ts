import { expect, it } from 'vitest';
import { useCliGateway } from '../cli/cli-harness';
import { signIn } from './session-helpers';

/** `model-gateway accounts login-link ID`: a one-time dashboard sign-in for the account's owner. */
const harness = useCliGateway({}, { PORT: '9123' });
const { cli } = harness;
/** Each command starts a process that compiles TypeScript on the fly: seconds, not milliseconds. */
const CLI_TIMEOUT = 60_000;

it(
  'prints a login link that signs the owner in to that account, once',
  async () => {
    const { gw } = harness;
    const accountId = await gw.createAccount('CLI owner');
    const result = await cli('accounts', 'login-link', accountId, '--base-url', `${gw.baseUrl}/`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const link = JSON.parse(result.stdout) as { url: string; expires_at: string };
    expect(Object.keys(link).sort()).toEqual(['expires_at', 'url']);
    expect(link.url).toMatch(new RegExp(`^${gw.baseUrl}/dashboard/login#token=lt-[0-9A-Za-z]{48}$`));
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);

    const token = link.url.split('#token=')[1] ?? '';
    const owner = await signIn(gw, token);
    expect(owner.body).toMatchObject({ role: 'account', account: { id: accountId, name: 'CLI owner' } });
    expect((await gw.http.post('/v1/admin/session').send({ token })).status).toBe(401);
  },
  CLI_TIMEOUT,
);

it(
  'defaults the address to localhost and the configured port',
  async () => {
    const { gw } = harness;
    const accountId = await gw.createAccount();
    const result = await cli('accounts', 'login-link', accountId);
    expect(JSON.parse(result.stdout).url).toMatch(/^http:\/\/localhost:9123\/dashboard\/login#token=lt-/);
  },
  CLI_TIMEOUT,
);

it(
  'fails with one line for a missing or unknown account, or a bad address',
  async () => {
    expect(await cli('accounts', 'login-link')).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'model-gateway: accounts login-link needs an account id\n',
    });
    expect(await cli('accounts', 'login-link', 'acct_nope')).toMatchObject({
      code: 1,
      stderr: 'model-gateway: No account with id "acct_nope".\n',
    });
    const bad = await cli('accounts', 'login-link', 'acct_nope', '--base-url', 'ftp://example.com');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--base-url must be an http/);
  },
  CLI_TIMEOUT,
);
