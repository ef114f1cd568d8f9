import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { useGatewayOnUpstreams, type GatewayOnUpstreams } from '../helpers/gateway-on-upstreams';
import type { TestGatewayOptions } from '../helpers/test-gateway';

/** What an agent CLI test runs against: its mock upstreams, the gateway on them, a key, a usage key and the CLI's home folder. */
export interface AgentGateway<Upstreams> extends GatewayOnUpstreams<Upstreams> {
  home: string;
}

/**
 * For an agent CLI test's describe: useGatewayOnUpstreams, and an empty home folder for the CLI
 * (`homePrefix`…), removed after it.
 */
export function useAgentGateway<Upstreams extends Record<string, { close(): Promise<void> }>>(
  startUpstreams: () => Promise<Upstreams>,
  gatewayOptions: (upstreams: Upstreams) => TestGatewayOptions,
  homePrefix: string,
): AgentGateway<Upstreams> {
  const agent = useGatewayOnUpstreams(startUpstreams, gatewayOptions) as AgentGateway<Upstreams>;
  beforeAll(async () => {
    agent.home = await mkdtemp(join(tmpdir(), homePrefix));
  });
  afterAll(async () => {
    if (agent.home) await rm(agent.home, { recursive: true, force: true });
  });
  return agent;
}
