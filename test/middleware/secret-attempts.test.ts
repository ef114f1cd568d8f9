import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoginLink } from '../../server/sessions/session-operations';
import { BASE_TEST_CONFIG, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/test-gateway';

/**
 * Guessing the admin token (the one secret an operator chooses, so possibly a weak one):
 * wrong admin tokens and login links are limited per client IP
 * (`limits.admin_auth_failures_per_minute`), over the admin API and the dashboard sign-in.
 */
const FAILURES_PER_MINUTE = 60;
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    configYaml: `server: { trust_proxy: 1 }\nlimits: { admin_auth_failures_per_minute: ${FAILURES_PER_MINUTE} }\n${BASE_TEST_CONFIG}`,
  });
});
afterAll(() => gw.close());

const fromIp = (ip: string, token: string) => ({ authorization: `Bearer ${token}`, 'x-forwarded-for': ip });

/** Wrong admin tokens until the first 429; the statuses seen. */
async function guessUntilRefused(ip: string, attempt: (index: number) => Promise<{ status: number }>) {
  const statuses: number[] = [];
  for (let index = 0; index < FAILURES_PER_MINUTE + 10; index++) {
    const { status } = await attempt(index);
    statuses.push(status);
    if (status === 429) break;
  }
  return statuses;
}

describe('wrong admin tokens per client IP', () => {
  it('are answered 401 up to the limit, then 429 with retry-after, for right tokens too, until the bucket refills', async () => {
    const statuses = await guessUntilRefused('10.1.0.1', (index) =>
      gw.http.get('/v1/admin/accounts').set(fromIp('10.1.0.1', `wrong-token-${index}`)),
    );
    // The bucket refills one failure a second: a slow run may fit one or two more.
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(FAILURES_PER_MINUTE);
    expect(statuses.at(-1)).toBe(429);

    const right = await gw.http.get('/v1/admin/accounts').set(fromIp('10.1.0.1', TEST_ADMIN_TOKEN));
    expect(right.status).toBe(429);
    expect(right.headers['retry-after']).toBe('1');
    expect(right.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(right.body.error.message).toMatch(/wrong admin token or login link/);

    // Another address is not affected.
    expect((await gw.http.get('/v1/admin/accounts').set(fromIp('10.1.0.2', TEST_ADMIN_TOKEN))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await gw.http.get('/v1/admin/accounts').set(fromIp('10.1.0.1', TEST_ADMIN_TOKEN))).status).toBe(200);
  });

  it('right tokens are never counted', async () => {
    for (let index = 0; index < FAILURES_PER_MINUTE + 5; index++) {
      const response = await gw.http.get('/v1/admin/accounts').set(fromIp('10.2.0.1', TEST_ADMIN_TOKEN));
      expect(response.status).toBe(200);
    }
    expect((await gw.http.get('/v1/admin/accounts').set(fromIp('10.2.0.1', 'wrong'))).status).toBe(401);
  });

  it('the dashboard sign-in shares the limit, and a login link is not used up by a refused attempt', async () => {
    const ip = '10.3.0.1';
    const statuses = await guessUntilRefused(ip, (index) =>
      gw.http
        .post('/v1/admin/session')
        .set('x-forwarded-for', ip)
        .send({ token: index % 2 === 0 ? `wrong-${index}` : 'lt-notALoginLinkToken' }),
    );
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(FAILURES_PER_MINUTE);
    expect(statuses.at(-1)).toBe(429);
    // The admin API from that address is refused as well.
    expect((await gw.http.get('/v1/admin/accounts').set(fromIp(ip, TEST_ADMIN_TOKEN))).status).toBe(429);

    const account = await gw.createAccount();
    const link = await createLoginLink({ store: gw.store, now: Date.now }, account, 'http://gateway.test');
    const token = new URL(link.url).hash.replace('#token=', '');
    const refused = await gw.http.post('/v1/admin/session').set('x-forwarded-for', ip).send({ token });
    expect(refused.status).toBe(429);
    expect(refused.headers['set-cookie']).toBeUndefined();
    // The link still works, from another address.
    const signedIn = await gw.http.post('/v1/admin/session').set('x-forwarded-for', '10.3.0.2').send({ token });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.role).toBe('account');
  });

  it('shows in the rate-limit rejection metric under its own limit label', async () => {
    const metrics = await gw.http.get('/metrics').set(gw.admin());
    expect(metrics.text).toMatch(/gateway_rate_limit_rejections_total\{route="[^"]*",limit="secret_attempts"\} [1-9]/);
  });
});
