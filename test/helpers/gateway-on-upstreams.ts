import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './test-gateway';

/** Mock upstreams, a gateway configured on them, and an account's key and usage key. */
export interface GatewayOnUpstreams<Upstreams> {
  upstreams: Upstreams;
  gateway: TestGateway;
  accountId: string;
  apiKey: string;
  usageKey: string;
}

/**
 * For the enclosing describe: the mock upstreams `startUpstreams` starts, a gateway with the
 * real usage recorder and database configured by `gatewayOptions` from them, an account with a
 * key and a usage key; all closed after it. Read the fields inside hooks and tests (they exist
 * from beforeAll on).
 */
export function useGatewayOnUpstreams<Upstreams extends Record<string, { close(): Promise<void> }>>(
  startUpstreams: () => Promise<Upstreams>,
  gatewayOptions: (upstreams: Upstreams) => TestGatewayOptions,
): GatewayOnUpstreams<Upstreams> {
  const fixture = {} as GatewayOnUpstreams<Upstreams>;
  beforeAll(async () => {
    fixture.upstreams = await startUpstreams();
    fixture.gateway = await startTestGateway(gatewayOptions(fixture.upstreams));
    fixture.accountId = await fixture.gateway.createAccount();
    fixture.apiKey = (await fixture.gateway.createKey(fixture.accountId)).key;
    fixture.usageKey = await fixture.gateway.createUsageKey(fixture.accountId);
  });
  afterAll(async () => {
    await fixture.gateway?.close();
    for (const upstream of Object.values(fixture.upstreams ?? {})) await upstream.close();
  });
  return fixture;
}
