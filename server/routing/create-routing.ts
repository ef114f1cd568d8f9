import type { Redis } from 'ioredis';
import type { Config } from '../config/load-config';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { DeploymentHealth } from './deployment-health';
import { DeploymentRouter } from './deployment-router';
import { SessionBindings } from './session-affinity';
import { SharedRoutingState } from './shared-routing-state';

/** The routing of one gateway instance (docs/routing.md): the router, its health, its bindings, and their sharing. */
export interface Routing {
  router: DeploymentRouter;
  health: DeploymentHealth;
  bindings: SessionBindings;
  /** Present with Redis: what reaches the other instances. */
  shared: SharedRoutingState | null;
  close(): void;
}

export interface RoutingOptions {
  config: Config;
  now: () => number;
  metrics?: GatewayMetrics;
  /** With REDIS_URL: the gateway's client, the URL for the subscriber, and the key prefix. */
  redis?: { client: Redis; url: string; prefix: string } | null;
  onError?: (error: unknown) => void;
}

export function createRouting(options: RoutingOptions): Routing {
  const { config, now, metrics } = options;
  const health = new DeploymentHealth({ baseMs: config.upstream.cooldownBaseMs, maxMs: config.upstream.cooldownMaxMs }, now);
  const bindings = new SessionBindings(now);
  const router = new DeploymentRouter(
    health,
    bindings,
    metrics
      ? {
          affinity: (model, outcome) => metrics.affinity.inc({ model, outcome }),
          cooled: (model, deployment) => metrics.deploymentCooldowns.inc({ model, deployment }),
        }
      : null,
  );
  const shared = options.redis
    ? new SharedRoutingState({
        redis: options.redis.client,
        redisUrl: options.redis.url,
        prefix: options.redis.prefix,
        health,
        bindings,
        now,
        onError: options.onError ?? (() => undefined),
      })
    : null;
  return { router, health, bindings, shared, close: () => shared?.close() };
}
