import { initServer } from '@ts-rest/express';
import { contract } from '../../contract';
import { listDeployments, setDeploymentEnabled, type DeploymentOperationsDependencies } from '../routing/deployment-operations';

const s = initServer();

/** The operator's deployment routes (docs/routing.md, "Operator control"), thin. */
export function deploymentsRouter(dependencies: DeploymentOperationsDependencies) {
  return s.router(contract.deployments, {
    listDeployments: async () => ({ status: 200, body: { object: 'list' as const, data: listDeployments(dependencies) } }),
    updateDeployment: async ({ params, body, res }) => ({
      status: 200,
      body: await setDeploymentEnabled(dependencies, { requestId: res.locals.context.requestId }, params.deploymentId, body.enabled),
    }),
  });
}
