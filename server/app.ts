import { createExpressEndpoints, initServer } from '@ts-rest/express';
import type { IncomingMessage } from 'node:http';
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
import type { ProviderRegistry } from './providers/registry';
import { createKeyLimiter } from './rate-limit/key-limiter';
import { createMemoryRateLimitStore } from './rate-limit/memory-store';
import type { StreamLimiter } from './rate-limit/stream-limiter';
import { adminRouter } from './routes/admin';
import { dashboardFiles } from './routes/dashboard-files';
import { API_REFERENCE_SCRIPT_PATH, apiReferenceScript, docsPage } from './routes/docs-page';
import { healthRouter, type ReadinessCheck } from './routes/health';
import { METRICS_PATH, metricsEndpoint } from './routes/metrics';
import { modelsRouter } from './routes/models';
import { requestsRouter } from './routes/requests';
import { deploymentsRouter } from './routes/deployments';
import { sessionRouter } from './routes/session';
import { usageRouter } from './routes/usage';
import { hashKey } from './keys/key-text';
import type { UsageDurability } from './usage/durability';
import type { UsageSink } from './usage/types';
import type { RequestLogSink } from './request-log/request-record';
import { newUsageEventId } from './usage/usage-event-id';
import { createUsageReporter } from './usage/usage-report';
import { listRoutes } from '../contract/list-routes';
import { createCatalogue } from './completions/resolve-model';
import { AccessReport } from './pipeline/access-report';
import { createFrontDispatcher, type GatewayListener } from './pipeline/front-dispatcher';
import { ModelPipeline } from './pipeline/model-pipeline';
import { OVERHEAD_HEADER } from './pipeline/reply';
import type { RequestContext } from './pipeline/request-context';
import { modelRouteTable } from './pipeline/route-table';
import type { BudgetGuard } from './budgets/budget-guard';
import type { Tracing } from './tracing/request-trace';
import { createRouting, type Routing } from './routing/create-routing';

export interface AppDependencies {
  config: Config;
  store: Store;
  keys: KeyCache;
  providers: ProviderRegistry;
  limiter: ReturnType<typeof createKeyLimiter>;
  usage: UsageSink;
  /** docs/request-log.md: where the request log's records go (the usage recorder); absent = none kept. */
  requestLog?: RequestLogSink | undefined;
  /** The usage journal the model calls wait on before their last bytes (docs/usage-durability.md). */
  durability?: UsageDurability;
  logger: Logger;
  readiness: ReadinessCheck;
  /** Builds the OpenAPI document (docs/client-and-openapi.md); called once, on its first request. */
  openapiDocument: () => Record<string, unknown>;
  /** Clock (ms) and id generator: injected so tests can fix them. */
  now: () => number;
  generateId: () => string;
  /** The built dashboard (dashboard/dist); tests point it elsewhere. */
  dashboardDirectory?: string;
  /** This instance's Prometheus registry (GET /metrics, access log). */
  metrics: GatewayMetrics;
  /** Open streams per key (`limits.max_streams_per_key`). */
  streams: StreamLimiter;
  /** Spend budgets of keys and accounts (docs/operator-controls.md); absent = not enforced. */
  budgets?: BudgetGuard;
  /** docs/tracing.md: a trace per model request; absent = traces off. */
  tracing?: Tracing | undefined;
  /** The choice of deployments and their health (docs/routing.md); absent: this instance's own, in memory. */
  routing?: Routing;
}

const s = initServer();

/**
 * The gateway's request listener, without listen and without reading the environment: the
 * front dispatcher (pipeline/front-dispatcher.ts) sending the model routes to their pipeline
 * (pipeline/model-pipeline.ts) and everything else to the Express app (`listener.express`).
 */
export function createApp(dependencies: AppDependencies): GatewayListener {
  const { config, logger } = dependencies;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', config.server.trustProxy);
  const report = new AccessReport(logger, dependencies.metrics);

  // The first stages of every request Express serves (the model routes have theirs in the pipeline).
  app.use(requestId(dependencies.generateId));
  app.use(accessLog(report));
  app.use(parseBody(config.server.bodyLimitBytes));

  const usageReport = createUsageReporter({ store: dependencies.store, now: dependencies.now });
  const routing = dependencies.routing ?? createRouting({ config, now: dependencies.now, metrics: dependencies.metrics });
  const calls = { ...dependencies, limits: config.limits, catalogue: createCatalogue(config), router: routing.router };
  const adminTokenHash = config.adminToken ? hashKey(config.adminToken) : null;
  const sessions = { store: dependencies.store, now: dependencies.now };
  // Failed admin-token attempts are counted per instance, in memory: the admin API must not
  // depend on Redis (nor degrade the shared limits when Redis is not connected yet).
  const secretAttempts = {
    limiter: createKeyLimiter(createMemoryRateLimitStore({ now: dependencies.now })),
    perMinute: config.limits.adminAuthFailuresPerMinute,
  };
  // The model routes are the pipeline's; ts-rest serves the rest of the contract.
  const { chat: _chat, embeddings: _embeddings, responses: _responses, messages: _messages, ...restOfContract } = contract;
  const router = s.router(restOfContract, {
    models: modelsRouter(config.models, dependencies.keys, dependencies.now),
    usage: usageRouter({ limiter: dependencies.limiter, limits: config.limits, usageReport }),
    admin: adminRouter({
      store: dependencies.store,
      keys: dependencies.keys,
      now: dependencies.now,
      usageReport,
      catalogue: new Set(calls.catalogue.byId.keys()),
    }),
    requests: requestsRouter({
      store: dependencies.store,
      bodiesKeptFor: (accountId) => config.requestLog.enabled && config.requestLog.bodies.accounts.includes(accountId),
    }),
    deployments: deploymentsRouter({ config, store: dependencies.store, routing, now: dependencies.now }),
    session: sessionRouter({ ...sessions, adminTokenHash, secretAttempts }),
    health: healthRouter(dependencies.readiness, dependencies.openapiDocument),
  });

  createExpressEndpoints(restOfContract, withOverheadHeader(router), app, {
    logInitialization: false,
    jsonQuery: false,
    responseValidation: false,
    globalMiddleware: [
      authenticate({ keys: dependencies.keys, adminTokenHash, sessions, secretAttempts }),
      authorizeAccount({ store: dependencies.store }),
    ],
    requestValidationErrorHandler: (error, _request, _response, next) => next(toValidationError(error)),
  });

  app.get('/docs', docsPage());
  app.get(API_REFERENCE_SCRIPT_PATH, apiReferenceScript());
  app.use('/dashboard', dashboardFiles(dependencies.dashboardDirectory));
  app.get(METRICS_PATH, metricsEndpoint(dependencies.metrics, config.metricsToken));
  app.use(
    routeNotFound([
      ...listRoutes(contract),
      { method: 'GET', path: '/docs' },
      { method: 'GET', path: API_REFERENCE_SCRIPT_PATH },
      { method: 'GET', path: METRICS_PATH },
      { method: 'GET', path: '/dashboard' },
    ]),
  );
  app.use(errorHandler(logger));

  const pipeline = new ModelPipeline({
    routes: modelRouteTable(calls),
    keys: dependencies.keys,
    bodyLimitBytes: config.server.bodyLimitBytes,
    generateId: dependencies.generateId,
    report,
    logger,
    clientIp: clientIpFor(app, config.server.trustProxy),
    now: dependencies.now,
    requestLog:
      dependencies.requestLog && config.requestLog.enabled
        ? {
            sink: dependencies.requestLog,
            newId: newUsageEventId,
            bodies: {
              maxBytes: config.requestLog.bodies.maxBytes,
              accounts: new Set(config.requestLog.bodies.accounts),
              keys: new Set(config.requestLog.bodies.keys),
            },
          }
        : undefined,
    tracing: dependencies.tracing,
  });
  return createFrontDispatcher(pipeline, app);
}

type RouteArguments = { res: { locals: { context?: RequestContext }; setHeader(name: string, value: string): unknown } };
type RouteHandler = (routeArguments: RouteArguments) => Promise<unknown>;

/**
 * The contract routes Express serves, each setting `x-gateway-overhead-ms` when its result
 * is ready (ts-rest writes the reply right after); errors get it from the error renderer.
 * Static pages (/docs, /dashboard, /metrics) do not carry it.
 */
function withOverheadHeader<Router extends object>(router: Router): Router {
  const wrap = (handler: RouteHandler): RouteHandler =>
    async function routeWithOverhead(routeArguments) {
      const result = await handler(routeArguments);
      const context = routeArguments.res.locals.context;
      if (context) routeArguments.res.setHeader(OVERHEAD_HEADER, context.markHeaders().toFixed(2));
      return result;
    };
  const walk = (node: unknown): unknown => {
    if (typeof node === 'function') return wrap(node as RouteHandler);
    if (typeof node !== 'object' || node === null) return node;
    const copy: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(node)) copy[name] = name === 'middleware' ? child : walk(child);
    return copy;
  };
  return walk(router) as Router;
}

/** The client's address as Express's `request.ip` gives it, for the requests the pipeline serves. */
function clientIpFor(app: Express, trustProxy: Config['server']['trustProxy']): (request: IncomingMessage) => string | undefined {
  if (trustProxy === false) return (request) => request.socket.remoteAddress;
  const trust = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  return (request) => {
    // proxy-addr's walk (what Express runs): from the socket back through X-Forwarded-For while the hop is trusted.
    const socketAddress = request.socket.remoteAddress;
    if (socketAddress === undefined) return undefined;
    const header = request.headers['x-forwarded-for'];
    const forwarded =
      typeof header === 'string'
        ? header
            .split(',')
            .map((part) => part.trim())
            .filter((part) => part.length > 0)
            .reverse()
        : [];
    const chain = [socketAddress, ...forwarded];
    for (let hop = 0; hop < chain.length - 1; hop++) if (!trust(chain[hop] as string, hop)) return chain[hop];
    return chain[chain.length - 1];
  };
}
