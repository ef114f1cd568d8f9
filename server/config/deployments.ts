import { z } from 'zod';
import { configObject } from './config-object';
import type { CatalogueProblem } from './schema';

/**
 * A catalogue model's deployments (docs/routing.md): the upstreams that serve it, each a
 * provider (its own base URL and key), with a weight, a priority and the provider account's own
 * limits. A model written with `provider:` is one deployment whose id is the model's.
 */

const positiveInteger = z.number().int().positive();

export const DeploymentIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'deployment ids are letters, digits, ".", ":", "-" and "_"');

export const DeploymentSchema = configObject({
  id: DeploymentIdSchema,
  // A provider name, a key of `providers`.
  provider: z.string().min(1),
  // The provider's model name; default the model's `upstream_model`.
  upstream_model: z.string().min(1).optional(),
  // Share of the traffic among the available deployments of the best priority.
  weight: z.number().positive().max(1_000_000).default(1),
  // Lower first: a deployment of priority 1 is used only when none of priority 0 is available.
  priority: z.number().int().nonnegative().max(1_000).default(0),
  // The provider account's own limits: past them the deployment is not chosen until the minute turns.
  rpm: positiveInteger.optional(),
  tpm: positiveInteger.optional(),
});

export const RoutingStrategySchema = z.enum(['weighted', 'least-busy', 'priority']);
export type RoutingStrategy = z.infer<typeof RoutingStrategySchema>;

export const AffinitySchema = z.enum(['session', 'prefix', 'none']);
export type Affinity = z.infer<typeof AffinitySchema>;

export const RoutingSchema = configObject({
  strategy: RoutingStrategySchema.default('weighted'),
  affinity: AffinitySchema.default('session'),
  // Seconds a session stays bound to its deployment after its last request (providers' caches can live an hour).
  affinity_ttl: positiveInteger.max(7 * 24 * 3600).default(3600),
});
export type RoutingConfig = z.output<typeof RoutingSchema>;

/** One deployment as the code reads it: every default filled in. */
export interface DeploymentConfig {
  id: string;
  /** The catalogue model it serves. */
  model: string;
  provider: string;
  upstreamModel: string;
  weight: number;
  priority: number;
  rpm: number | null;
  tpm: number | null;
}

type WrittenDeployment = z.output<typeof DeploymentSchema>;

/** The model's deployments: those written, or the one its `provider:` names (with the model's id). */
export function deploymentsOf(
  model: { id: string; provider?: string; upstreamModel: string },
  written: readonly WrittenDeployment[] | undefined,
): DeploymentConfig[] {
  if (!written) {
    return [
      {
        id: model.id,
        model: model.id,
        provider: model.provider ?? '',
        upstreamModel: model.upstreamModel,
        weight: 1,
        priority: 0,
        rpm: null,
        tpm: null,
      },
    ];
  }
  return written.map((deployment) => ({
    id: deployment.id,
    model: model.id,
    provider: deployment.provider,
    upstreamModel: deployment.upstreamModel ?? model.upstreamModel,
    weight: deployment.weight,
    priority: deployment.priority,
    rpm: deployment.rpm ?? null,
    tpm: deployment.tpm ?? null,
  }));
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * Rules of the deployments across the file (docs/routing.md): deployment ids are unique in the
 * whole file (a model with `provider:` is a deployment named like the model); every
 * deployment's provider is declared. Written against the file as written (unknown input), like
 * the catalogue's other rules; the loader runs them on every file.
 */
export function findDeploymentProblems(models: readonly unknown[], providerNames: readonly string[] | null): CatalogueProblem[] {
  const problems: CatalogueProblem[] = [];
  const firstById = new Map<string, { where: string; model: boolean }>();
  const claim = (id: string, path: (string | number)[], where: string, model: boolean): void => {
    const first = firstById.get(id);
    if (first === undefined) firstById.set(id, { where, model });
    // Two models of one id are the catalogue's duplicate model id.
    else if (!(first.model && model))
      problems.push({ path, message: `duplicate deployment id "${id}" (first declared as ${first.where})` });
  };
  models.forEach((entry, index) => {
    const model = asRecord(entry);
    if (!model) return;
    const deployments = model.deployments;
    // A model with both or neither is the schema's to report.
    if ((model.provider === undefined) === (deployments === undefined)) return;
    if (deployments === undefined) {
      if (typeof model.id === 'string') claim(model.id, ['models', index, 'id'], `the model models[${index}]`, true);
      return;
    }
    if (!Array.isArray(deployments)) return;
    deployments.forEach((item, position) => {
      const deployment = asRecord(item);
      if (!deployment) return;
      const path = ['models', index, 'deployments', position];
      if (typeof deployment.id === 'string') claim(deployment.id, [...path, 'id'], `models[${index}].deployments[${position}]`, false);
      if (providerNames && typeof deployment.provider === 'string' && !providerNames.includes(deployment.provider)) {
        const declared = providerNames.length > 0 ? providerNames.join(', ') : 'none';
        problems.push({ path: [...path, 'provider'], message: `unknown provider "${deployment.provider}" (declared: ${declared})` });
      }
    });
  });
  return problems;
}
