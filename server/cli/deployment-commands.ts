import type { Config } from '../config/load-config';
import type { Store } from '../db/types';
import { createRouting } from '../routing/create-routing';
import { loadDeploymentStates, setDeploymentEnabled } from '../routing/deployment-operations';
import { publishEnabledOnce } from '../routing/shared-routing-state';

/** The key prefix the servers share their routing state under (gateway.ts: the rate limits' prefix). */
const ROUTING_PREFIX = 'mg:rl:';

/**
 * `deployments list`, `deployments disable ID`, `deployments enable ID` (docs/routing.md,
 * "Operator control"): the catalogue's deployments with the operator's switch, stored; a
 * change is announced to running servers through Redis (they reread the states every few
 * seconds otherwise). Health and traffic are each server's: GET /v1/admin/deployments.
 */
export async function runDeploymentCommand(
  config: Config,
  store: Store,
  subcommand: string | undefined,
  positionals: readonly string[],
  warn: (message: string) => void,
): Promise<unknown> {
  if (subcommand === 'list') {
    const disabled = new Set((await store.listDeploymentStates()).filter((state) => !state.enabled).map((state) => state.id));
    return config.models.flatMap((model) =>
      model.deployments.map((deployment) => ({
        id: deployment.id,
        model: deployment.model,
        provider: deployment.provider,
        upstream_model: deployment.upstreamModel,
        weight: deployment.weight,
        priority: deployment.priority,
        enabled: !disabled.has(deployment.id),
      })),
    );
  }
  if (subcommand !== 'enable' && subcommand !== 'disable') {
    throw new Error(`unknown command "deployments ${subcommand ?? ''}"; run model-gateway --help`);
  }
  const id = positionals[0] ?? fail(`deployments ${subcommand} needs a deployment id`);
  const enabled = subcommand === 'enable';
  const routing = createRouting({ config, now: Date.now });
  await loadDeploymentStates(store, routing);
  const view = await setDeploymentEnabled({ config, store, routing, now: Date.now }, {}, id, enabled);
  if (config.redisUrl) {
    await publishEnabledOnce(config.redisUrl, ROUTING_PREFIX, id, enabled).catch((error: unknown) =>
      warn(
        `running servers were not notified through Redis (${error instanceof Error ? error.message : String(error)}); they read the change within 5 seconds`,
      ),
    );
  }
  return { id: view.id, model: view.model, enabled };
}

function fail(message: string): never {
  throw new Error(message);
}
