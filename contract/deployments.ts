import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { adminMetadata } from './admin.js';
import { errorResponses } from './errors.js';

const c = initContract();

export const DeploymentStateSchema = z
  .enum(['healthy', 'cooling_down', 'disabled'])
  .describe(
    '`disabled`: by the operator, on every instance, until enabled; `cooling_down`: after its own failures, until `cooldown_until`.',
  );

export const DeploymentSchema = z
  .object({
    id: z.string().describe("The deployment's id, unique in the catalogue (a model with `provider:` is one deployment named like it)."),
    model: z.string().describe('The catalogue model it serves.'),
    provider: z.string().describe('The provider it calls (`providers.<name>` of the configuration).'),
    upstream_model: z.string().describe("The provider's model name."),
    weight: z.number().describe('Its share of the traffic among the available deployments of its priority.'),
    priority: z.number().int().describe('Lower first: used only when no deployment of a lower priority is available.'),
    state: DeploymentStateSchema,
    cooldown_until: z.string().nullable().describe('ISO 8601 time its cooldown ends; null when it is not cooling down.'),
    requests_5m: z.number().int().describe('Calls made to it in the last five minutes (this instance).'),
    errors_5m: z.number().int().describe('Of those, the failed ones (this instance).'),
    in_flight: z.number().int().describe('Calls to it under way now (this instance; a stream until its end).'),
  })
  .describe('One deployment of a catalogue model (docs/routing.md).');
export type Deployment = z.infer<typeof DeploymentSchema>;

export const DeploymentListSchema = z
  .object({ object: z.literal('list').describe('Always `list`.'), data: z.array(DeploymentSchema).describe('In catalogue order.') })
  .describe('Every deployment of the catalogue.');

export const UpdateDeploymentBodySchema = z
  .object({
    enabled: z.boolean().describe('false: the deployment gets no traffic on any instance until enabled again (kept across restarts).'),
  })
  .strict()
  .describe("The operator's switch of a deployment.");

export const deploymentsContract = c.router(
  {
    listDeployments: {
      method: 'GET',
      path: '/v1/admin/deployments',
      summary: 'Every deployment of the catalogue, with its state, cooldown and recent traffic',
      responses: { 200: DeploymentListSchema, ...errorResponses },
      metadata: adminMetadata('operator'),
    },
    updateDeployment: {
      method: 'PATCH',
      path: '/v1/admin/deployments/:deploymentId',
      pathParams: z.object({ deploymentId: z.string().max(200).describe("The deployment's `id`.") }),
      summary: 'Disable a deployment (no traffic on any instance, kept across restarts) or enable it again',
      body: UpdateDeploymentBodySchema,
      responses: { 200: DeploymentSchema, ...errorResponses },
      metadata: adminMetadata('operator', {
        request: { enabled: false },
        response: {
          id: 'sonnet-second',
          model: 'claude-sonnet-5-5',
          provider: 'anthropic-b',
          upstream_model: 'claude-sonnet-5-5',
          weight: 1,
          priority: 0,
          state: 'disabled',
          cooldown_until: null,
          requests_5m: 120,
          errors_5m: 3,
          in_flight: 0,
        },
      }),
    },
  },
  { strictStatusCodes: true },
);
