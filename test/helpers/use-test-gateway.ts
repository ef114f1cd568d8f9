import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './test-gateway';

/** A test gateway with an account and a key on it. */
export interface GatewayWithKey {
  gateway: TestGateway;
  accountId: string;
  key: string;
  keyId: string;
}

/**
 * For the enclosing describe: a test gateway started in beforeAll from `options` (a function, so
 * that it can read upstreams that earlier beforeAll hooks started), an account and a key on it,
 * closed in afterAll. Read the fields inside hooks and tests (they exist from beforeAll on).
 */
export function useTestGateway(options: () => TestGatewayOptions = () => ({})): GatewayWithKey {
  const fixture = {} as GatewayWithKey;
  beforeAll(async () => {
    fixture.gateway = await startTestGateway(options());
    fixture.accountId = await fixture.gateway.createAccount();
    const { id, key } = await fixture.gateway.createKey(fixture.accountId);
    Object.assign(fixture, { key, keyId: id });
  });
  afterAll(() => fixture.gateway?.close());
  return fixture;
}
