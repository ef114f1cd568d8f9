import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/test-gateway';

/** What an agent CLI test runs against: its mock upstreams, the gateway on them, a key, a usage key and the CLI's home folder. */
export interface AgentGateway<Upstreams> {
  upstreams: Upstreams;
  gateway: TestGateway;
  accountId: string;
  apiKey: string;
  usageKey: string;
  home: string;
}

/**
 * For an agent CLI test's describe: the mock upstreams `startUpstreams` starts, a gateway with
 * the real usage recorder and database configured by `gatewayOptions` from them, an account with
 * a key and a usage key, and an empty home folder for the CLI (`homePrefix`…); all closed and
 * removed after it. Read the fields inside hooks and tests (they exist from beforeAll on).
 */
export function useAgentGateway<Upstreams extends Record<string, { close(): Promise<void> }>>(
  startUpstreams: () => Promise<Upstreams>,
  gatewayOptions: (upstreams: Upstreams) => TestGatewayOptions,
  homePrefix: string,
): AgentGateway<Upstreams> {
  const agent = {} as AgentGateway<Upstreams>;
  beforeAll(async () => {
    agent.upstreams = await startUpstreams();
    agent.gateway = await startTestGateway(gatewayOptions(agent.upstreams));
    agent.accountId = await agent.gateway.createAccount();
    agent.apiKey = (await agent.gateway.createKey(agent.accountId)).key;
    agent.usageKey = await agent.gateway.createUsageKey(agent.accountId);
    agent.home = await mkdtemp(join(tmpdir(), homePrefix));
  });
  afterAll(async () => {
    await agent.gateway?.close();
    for (const upstream of Object.values(agent.upstreams ?? {})) await upstream.close();
    if (agent.home) await rm(agent.home, { recursive: true, force: true });
  });
  return agent;
}
