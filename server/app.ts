import { createExpressEndpoints, initServer } from '@ts-rest/express';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { contract } from '../contract';
import type { Config } from './config/load-config';
import type { Store } from './db/types';
import type { KeyCache } from './keys/key-cache';
import type { GatewayMetrics } from './metrics/gateway-metrics';
import { accessLog } from './middleware/access-log';
import { authenticate } from './middleware/authenticate';
import { authorizeAccount } from './middleware/authorize-account';
import { errorHandler, toValidationError } from './middleware/error-handler';
import { parseBody } from './middleware/parse-body';
import { requestId } from './middleware/request-id';
import { routeNotFound } from './middleware/route-not-found';
import { serveDirectRoutes } from './routes/direct-routes';
import type { ProviderRegistry } from './providers/registry';
import { createKeyLimiter } from './rate-limit/key-limiter';
import { createMemoryRateLimitStore } from './rate-limit/memory-store';
import type { StreamLimiter } from './rate-limit/stream-limiter';
import { adminRouter } from './routes/admin';
import { dashboardFiles } from './routes/dashboard-files';
import { docsPage } from './routes/docs-page';
import { modelRoutes } from './routes/model-routes';
import { healthRouter, type ReadinessCheck } from './routes/health';
import { METRICS_PATH, metricsEndpoint } from './routes/metrics';
import { modelsRouter } from './routes/models';
import { sessionRouter } from './routes/session';
import { usageRouter } from './routes/usage';
import { hashKey } from './keys/key-text';
import type { UsageSink } from './usage/types';
import { createUsageReporter } from './usage/usage-report';
import { listRoutes } from '../contract/list-routes';
import { createCatalogue } from './completions/resolve-model';

export interface AppDependencies {
  config: Config;
  store: Store;
  keys: KeyCache;
  providers: ProviderRegistry;
  limiter: ReturnType<typeof createKeyLimiter>;
  usage: UsageSink;
  logger: Logger;
  readiness: ReadinessCheck;
  openapiDocument: Record<string, unknown>;
  /** Clock (ms) and id generator: injected so tests can fix them. */
  now: () => number;
  generateId: () => string;
  /** The built dashboard (dashboard/dist); tests point it elsewhere. */
  dashboardDirectory?: string;
  /** This instance's Prometheus registry (GET /metrics, access log). */
  metrics: GatewayMetrics;
  /** Open streams per key (`limits.max_streams_per_key`). */
  streams: StreamLimiter;
}

const s = initServer();

/** The Express app, without listen and without reading the environment (docs/architecture.md). */
export function createApp(dependencies: AppDependencies): Express {
  const { config, logger } = dependencies;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', config.server.trustProxy);

  // The middleware every request goes through, in this order (the model routes too: see below).
  const stages = [
    requestId(dependencies.generateId),
    accessLog({ logger, metrics: dependencies.metrics, responsePrototype: app.response }),
    parseBody(config.server.bodyLimitBytes),
  ];
  for (const stage of stages) app.use(stage);

  const usageReport = createUsageReporter({ store: dependencies.store, now: dependencies.now });
  const calls = { ...dependencies, limits: config.limits, catalogue: createCatalogue(config) };
  const adminTokenHash = config.adminToken ? hashKey(config.adminToken) : null;
  const sessions = { store: dependencies.store, now: dependencies.now };
  // Failed admin-token attempts are counted per instance, in memory: the admin API must not
  // depend on Redis (nor degrade the shared limits when Redis is not connected yet).
  const secretAttempts = {
    limiter: createKeyLimiter(createMemoryRateLimitStore({ now: dependencies.now })),
    perMinute: config.limits.adminAuthFailuresPerMinute,
  };
  // The two model routes are served by hand-written handlers (routes/model-routes.ts),
  // registered first; ts-rest serves the rest of the contract.
  const { chat: _chat, embeddings: _embeddings, ...restOfContract } = contract;
  const models = modelRoutes({ ...calls, keys: dependencies.keys });
  app.post(contract.chat.create.path, models.chat);
  app.post(contract.embeddings.create.path, models.embeddings);
  const router = s.router(restOfContract, {
    models: modelsRouter(config.models, dependencies.keys),
    usage: usageRouter({ limiter: dependencies.limiter, limits: config.limits, usageReport }),
    admin: adminRouter({ store: dependencies.store, keys: dependencies.keys, now: dependencies.now, usageReport, catalogue: new Set(calls.catalogue.byId.keys()) }),
    session: sessionRouter({ ...sessions, adminTokenHash, secretAttempts }),
    health: healthRouter(dependencies.readiness, dependencies.openapiDocument),
  });

  createExpressEndpoints(restOfContract, router, app, {
    logInitialization: false,
    jsonQuery: false,
    responseValidation: false,
    globalMiddleware: [authenticate({ keys: dependencies.keys, adminTokenHash, sessions, secretAttempts }), authorizeAccount({ store: dependencies.store })],
    requestValidationErrorHandler: (error, _request, _response, next) => next(toValidationError(error)),
  });

  app.get('/docs', docsPage(dependencies.openapiDocument));
  app.use('/dashboard', dashboardFiles(dependencies.dashboardDirectory));
  app.get(METRICS_PATH, metricsEndpoint(dependencies.metrics, config.metricsToken));
  app.use(routeNotFound([...listRoutes(contract), { method: 'GET', path: '/docs' }, { method: 'GET', path: METRICS_PATH }, { method: 'GET', path: '/dashboard' }]));
  const onError = errorHandler(logger);
  app.use(onError);
  // The hot path: the model routes, reached without Express's router (same middleware, same handlers).
  serveDirectRoutes(
    app,
    [
      { path: contract.chat.create.path, handler: models.chat },
      { path: contract.embeddings.create.path, handler: models.embeddings },
    ],
    stages,
    onError,
  );
  return app;
}
