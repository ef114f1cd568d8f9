import { initServer } from '@ts-rest/express';
import { contract } from '../../contract';

const s = initServer();

export interface Readiness {
  /** False when the instance cannot serve: the load balancer should route elsewhere. */
  ready: boolean;
  checks: Record<string, 'ok' | 'down' | 'disabled'>;
}
export type ReadinessCheck = () => Promise<Readiness>;

export function healthRouter(readiness: ReadinessCheck, buildOpenApiDocument: () => Record<string, unknown>) {
  let openapiDocument: Record<string, unknown> | undefined;
  return s.router(contract.health, {
    health: async () => ({ status: 200, body: { status: 'ok' as const } }),
    ready: async () => {
      const { ready, checks } = await readiness();
      return ready
        ? { status: 200, body: { status: 'ok' as const, checks } }
        : { status: 503, body: { status: 'unavailable' as const, checks } };
    },
    openapi: async () => ({ status: 200, body: (openapiDocument ??= buildOpenApiDocument()) }),
  });
}
