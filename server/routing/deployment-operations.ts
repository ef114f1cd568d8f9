import type { Deployment } from '../../contract';
import { recordAudit, type AuditContext } from '../audit/audit-log';
import type { DeploymentConfig } from '../config/deployments';
import type { Config } from '../config/load-config';
import type { Store } from '../db/types';
import { notFound } from '../errors/gateway-error';
import type { Routing } from './create-routing';

/**
 * The operator's view and switch of the deployments (docs/routing.md, "Operator control"):
 * GET /v1/admin/deployments, PATCH /v1/admin/deployments/{id}, and the CLI's `deployments`.
 */

export interface DeploymentOperationsDependencies {
  config: Config;
  store: Store;
  routing: Routing;
  now: () => number;
}

function allDeployments(config: Config): DeploymentConfig[] {
  return config.models.flatMap((model) => model.deployments);
}

export function toDeploymentView(deployment: DeploymentConfig, routing: Routing): Deployment {
  const { health } = routing;
  const until = health.coolingUntil(deployment.id);
  const recent = health.recent(deployment.id);
  return {
    id: deployment.id,
    model: deployment.model,
    provider: deployment.provider,
    upstream_model: deployment.upstreamModel,
    weight: deployment.weight,
    priority: deployment.priority,
    state: health.isDisabled(deployment.id) ? 'disabled' : until > 0 ? 'cooling_down' : 'healthy',
    cooldown_until: until > 0 ? new Date(until).toISOString() : null,
    requests_5m: recent.requests,
    errors_5m: recent.errors,
    in_flight: health.inFlight(deployment.id),
  };
}

export function listDeployments(dependencies: DeploymentOperationsDependencies): Deployment[] {
  return allDeployments(dependencies.config).map((deployment) => toDeploymentView(deployment, dependencies.routing));
}

/**
 * Enables or disables a deployment: stored (a disable outlasts restarts and is never undone
 * automatically), applied here at once, published to the other instances (Redis; without it
 * they read it at their next reload of the states), and audited.
 */
export async function setDeploymentEnabled(
  dependencies: DeploymentOperationsDependencies,
  audit: Omit<AuditContext, 'store' | 'now'>,
  id: string,
  enabled: boolean,
): Promise<Deployment> {
  const deployment = allDeployments(dependencies.config).find((entry) => entry.id === id);
  if (!deployment)
    throw notFound(
      'not_found',
      `No deployment ${JSON.stringify(id)} in the catalogue; GET /v1/admin/deployments lists them.`,
      'deploymentId',
    );
  const { routing } = dependencies;
  const before = toDeploymentView(deployment, routing);
  await dependencies.store.setDeploymentEnabled(id, enabled, new Date(dependencies.now()));
  routing.health.setDisabled(id, !enabled);
  await routing.shared?.publishEnabled(id, enabled).catch(() => undefined);
  const after = toDeploymentView(deployment, routing);
  await recordAudit(
    { ...audit, store: dependencies.store, now: dependencies.now },
    { action: enabled ? 'deployment.enable' : 'deployment.disable', accountId: null, targetId: id, before, after },
  );
  return after;
}

/** The disables stored in the database, applied to this instance's routing (at start, then periodically). */
export async function loadDeploymentStates(store: Store, routing: Routing): Promise<void> {
  const states = await store.listDeploymentStates();
  routing.health.replaceDisabled(states.filter((state) => !state.enabled).map((state) => state.id));
}
