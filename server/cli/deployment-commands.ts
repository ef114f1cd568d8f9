import type { Deployment } from '../../contract';
import type { Config } from '../config/load-config';
import type { Store } from '../db/types';
import { createRouting } from '../routing/create-routing';
import { listDeployments, loadDeploymentStates, setDeploymentEnabled } from '../routing/deployment-operations';
import { loadCooldownsOnce, publishEnabledOnce } from '../routing/shared-routing-state';
import { SHARED_KEY_PREFIX } from '../redis/key-prefix';

/** A deployment as the CLI prints it: the admin route's view without the calls counted by a server (each server's own). */
export type CliDeployment = Omit<Deployment, 'requests_5m' | 'errors_5m' | 'in_flight'>;

function cliView({ requests_5m: _requests, errors_5m: _errors, in_flight: _inFlight, ...view }: Deployment): CliDeployment {
  return view;
}

/**
 * `deployments list`, `deployments disable ID`, `deployments enable ID` (docs/routing.md,
 * "Operator control"): the deployments as GET /v1/admin/deployments shows them
 * (`listDeployments`), with the operator's switches stored in the database and, with Redis, the
 * servers' shared cooldowns; a change is stored, then announced to running servers through
 * Redis (they reread the switches every few seconds otherwise). The calls of the last minutes
 * and in flight are each server's: GET /v1/admin/deployments.
 */
export async function runDeploymentCommand(
  config: Config,
  store: Store,
  subcommand: string | undefined,
  positionals: readonly string[],
  warn: (message: string) => void,
): Promise<CliDeployment[] | CliDeployment> {
  if (subcommand !== 'list' && subcommand !== 'enable' && subcommand !== 'disable') {
    throw new Error(`unknown command "deployments ${subcommand ?? ''}"; run model-gateway --help`);
  }
  const id = subcommand === 'list' ? null : (positionals[0] ?? fail(`deployments ${subcommand} needs a deployment id`));
  const routing = createRouting({ config, now: Date.now });
  await loadDeploymentStates(store, routing);
  const redisUrl = config.redisUrl;
  const notified = (error: unknown) => `(${error instanceof Error ? error.message : String(error)})`;
  if (redisUrl) {
    await loadCooldownsOnce(redisUrl, SHARED_KEY_PREFIX, routing.health).catch((error: unknown) =>
      warn(`the servers' cooldowns could not be read from Redis ${notified(error)}; every deployment is shown as not cooling down`),
    );
  }
  const dependencies = { config, store, routing, now: Date.now };
  if (id === null) return listDeployments(dependencies).map(cliView);
  const enabled = subcommand === 'enable';
  const view = await setDeploymentEnabled(dependencies, {}, id, enabled);
  if (redisUrl) {
    await publishEnabledOnce(redisUrl, SHARED_KEY_PREFIX, id, enabled).catch((error: unknown) =>
      warn(`running servers were not notified through Redis ${notified(error)}; they read the change within 5 seconds`),
    );
  }
  return cliView(view);
}

function fail(message: string): never {
  throw new Error(message);
}
