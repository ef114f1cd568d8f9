import type { GatewayListener } from './pipeline/front-dispatcher';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { buildOpenApiDocument } from '../openapi/build-document';
import { createApp } from './app';
import type { Config } from './config/load-config';
import { createStore } from './db/create-store';
import type { Store } from './db/types';
import { KeyCache } from './keys/key-cache';
import { publishKeyEvent, subscribeKeyEvents } from './keys/key-events';
import { createLogger } from './logging/logger';
import { createGatewayMetrics, type GatewayMetrics, type GatewayMetricsOptions } from './metrics/gateway-metrics';
import { createHttpClient } from './providers/http-client';
import { createProviderRegistry, type ProviderRegistryDependencies } from './providers/registry';
import { createBudgetGuard } from './budgets/budget-guard';
import { createMemoryBudgetStore, type BudgetStore } from './budgets/budget-store';
import { withBudgetFallback } from './budgets/fallback-budget-store';
import { createRedisBudgetStore } from './budgets/redis-budget-store';
import { createKeyLimiter } from './rate-limit/key-limiter';
import { createMemoryRateLimitStore } from './rate-limit/memory-store';
import { createRedisRateLimitStore } from './rate-limit/redis-store';
import { createSharedStoreBreaker, type SharedStoreBreaker } from './redis/shared-store-breaker';
import { RedisTurnTransaction } from './redis/turn-transaction';
import { createResilientRateLimitStore } from './rate-limit/resilient-store';
import { createStreamLimiter } from './rate-limit/stream-limiter';
import type { RateLimitStore } from './rate-limit/types';
import type { UsageDurability } from './usage/durability';
import { claimJournalSlot, type JournalSlot, type JournalSlotRequest } from './usage/journal-slots';
import { openUsageJournal, type OpenedJournal } from './usage/open-journal';
import { RedisStreamDurability } from './usage/redis-stream-durability';
import { UsageRecorder } from './usage/recorder';
import { newUsageEventId } from './usage/usage-event-id';
import type { UsageJournal } from './usage/usage-journal';
import { startRetention } from './usage/retention';
import type { UsageSink } from './usage/types';
import type { RequestLogSink } from './request-log/request-record';
import { packageVersion } from './version';
import { createRouting } from './routing/create-routing';
import { loadDeploymentStates } from './routing/deployment-operations';

import { randomHexIds } from './random-ids';
import type { Tracing } from './tracing/request-trace';
import { startTracing } from './tracing/start-tracing';
import { SHARED_KEY_PREFIX } from './redis/key-prefix';

/** How often an instance rereads the operator's deployment disables (docs/routing.md). */
const DEPLOYMENT_STATES_INTERVAL_MS = 5_000;

export interface GatewayOptions {
  logger?: Logger;
  now?: () => number;
  generateId?: () => string;
  /** Where the request log's records go when `usageSink` replaces the recorder (tests). */
  requestLog?: RequestLogSink;
  /** Replaces the usage recorder (tests). */
  usageSink?: UsageSink;
  /** Replaces provider factories by type (tests). */
  providerFactories?: ProviderRegistryDependencies['factories'];
  /** An already open store (tests share one between two instances). */
  store?: Store;
  /** Redis key prefix of the rate-limit buckets (tests isolate runs with their own). */
  rateLimitPrefix?: string;
  /** The key cache's database re-check (the backstop of the Redis key-change channel); default 500 ms. */
  keyRefreshIntervalMs?: number;
  /** Process metrics (CPU, memory, event loop) in GET /metrics: `serve` turns them on. */
  processMetrics?: boolean;
  /** Replaces how GET /metrics renders (cluster workers answer for the whole cluster). */
  renderMetrics?: GatewayMetricsOptions['render'];
  /**
   * Where this instance's usage journal goes (`usage.durability: journal`, docs/usage-durability.md):
   * the slot it claims under `usage.journal_dir`; `serve` gives it. Without it usage is kept in
   * memory until stored.
   */
  usageJournal?: JournalSlotRequest;
  /** Replaces the usage journal (tests: a journal whose disk is full). */
  usageDurability?: UsageDurability;
  /** Replaces the Redis budget store, still behind the shared breaker (tests: one whose Redis fails or hangs). */
  budgetStore?: BudgetStore;
}

export interface Gateway {
  /** The request listener: the front dispatcher, the Express app behind it (`app.express`). */
  app: GatewayListener;
  config: Config;
  store: Store;
  keys: KeyCache;
  recorder: UsageRecorder | null;
  journal: UsageJournal | null;
  /** The journal slot this instance claimed (null without a journal). */
  journalSlot: JournalSlot | null;
  logger: Logger;
  metrics: GatewayMetrics;
  /** docs/tracing.md: the gateway's tracing; null when traces are off. */
  tracing: Tracing | null;
  /** Flushes usage and closes connections; the HTTP server is the caller's. */
  close(options?: { drainTimeoutMs?: number }): Promise<{ written: number; lost: number }>;
}

/**
 * Builds every dependency from the configuration and returns the app (the composition
 * root: nothing else creates clients or reads the config). Migrations are the caller's.
 */
export async function createGateway(config: Config, options: GatewayOptions = {}): Promise<Gateway> {
  // A start that fails closes what it opened (connections, timers, the journal slot), so the
  // process can exit (README "Deployment"): nothing of it keeps running.
  const onFailure: (() => unknown)[] = [];
  try {
    return await buildGateway(config, options, onFailure);
  } catch (error) {
    for (const close of onFailure.reverse()) {
      try {
        await close();
      } catch {
        // Closing what a failed start opened: the start's own error is the one to report.
      }
    }
    throw error;
  }
}

async function buildGateway(config: Config, options: GatewayOptions, onFailure: (() => unknown)[]): Promise<Gateway> {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const now = options.now ?? Date.now;
  const generateId = options.generateId ?? randomHexIds();
  // docs/usage-durability.md, "One directory, one process": the journal slot is claimed first,
  // so a start that cannot have one fails before it connects to anything.
  const recording = !options.usageSink;
  const slot =
    recording && config.usage.durability === 'journal' && options.usageJournal ? await claimJournalSlot(options.usageJournal) : null;
  if (slot) onFailure.push(() => slot.claim.release());
  const store = options.store ?? (await createStore(config.databaseUrl));
  if (!options.store) onFailure.push(() => store.close());

  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 0, enableOfflineQueue: false })
    : null;
  redis?.on('error', () => undefined);
  if (redis) onFailure.push(() => redis.disconnect());

  // docs/keys-and-accounts.md: a key change reaches every instance within 1 s: at once through Redis
  // pub/sub, and through the cache's database re-check when Redis is absent or down.
  const keys = new KeyCache(store, {
    now,
    refreshIntervalMs: options.keyRefreshIntervalMs,
    onError: (error) => logger.warn({ err: error }, 'key cache refresh failed; serving cached keys'),
    broadcast: redis ? (event) => publishKeyEvent(redis, event) : undefined,
  });
  keys.start();
  onFailure.push(() => keys.stop());
  const keyEvents = config.redisUrl
    ? subscribeKeyEvents({
        redisUrl: config.redisUrl,
        onEvent: (event) => void keys.reload(event),
        onResubscribed: () => void keys.refresh(),
        onError: (error) =>
          logger.warn({ err: error }, 'key-change channel unavailable; key changes from other instances arrive by polling'),
      })
    : null;
  if (keyEvents) onFailure.push(() => keyEvents.close());
  // docs/performance.md: a turn's rate-limit and budget reservations and settlements, and its
  // usage XADD (docs/usage-durability.md), in one round trip.
  const transaction = redis ? new RedisTurnTransaction(redis) : null;
  // docs/rate-limits.md, "Several instances: Redis": one breaker for the rate limits and the
  // spend budgets, so that both know at once when Redis is down.
  const breaker: SharedStoreBreaker | null = redis
    ? createSharedStoreBreaker({
        policy: config.limits.redisFailure,
        onStateChange: (state, error) =>
          state === 'down'
            ? logger.error({ err: error, policy: config.limits.redisFailure }, 'Redis unreachable: rate limits and spend budgets degraded')
            : logger.info('Redis reachable again: shared rate limits and spend budgets restored'),
      })
    : null;
  const rateStore: RateLimitStore =
    redis && breaker
      ? createResilientRateLimitStore({
          primary: createRedisRateLimitStore({
            redis,
            prefix: options.rateLimitPrefix ?? SHARED_KEY_PREFIX,
            transaction: transaction ?? undefined,
          }),
          breaker,
        })
      : createMemoryRateLimitStore({ now });
  onFailure.push(() => rateStore.close());
  const limiter = createKeyLimiter(rateStore);
  const streams = createStreamLimiter(config.limits.maxStreamsPerKey);

  const http = createHttpClient({
    connectTimeoutMs: config.upstream.connectTimeoutMs,
    firstByteTimeoutMs: config.upstream.firstByteTimeoutMs,
    idleTimeoutMs: config.upstream.idleTimeoutMs,
    keepAliveMs: config.upstream.keepAliveMs,
  });
  onFailure.push(() => http.close());
  // docs/tracing.md: the OpenTelemetry SDK is loaded only when traces are on.
  const tracing = await startTracing(config.tracing, packageVersion());
  if (tracing) onFailure.push(() => tracing.shutdown());
  const providers = createProviderRegistry({
    providers: Object.values(config.providers),
    http,
    now,
    generateId,
    factories: options.providerFactories,
  });
  const keyless = Object.values(config.providers).filter((provider) => provider.apiKeyEnv && provider.apiKey === '');
  if (keyless.length > 0) {
    logger.info(
      { providers: keyless.map((provider) => `${provider.name} (${provider.apiKeyEnv})`) },
      'providers without an API key answer 502 until their variable is set',
    );
  }

  let opened: OpenedJournal | null = null;
  const recorder = recording
    ? new UsageRecorder(store, {
        flushIntervalMs: config.usage.flushIntervalMs,
        batchSize: config.usage.flushBatchSize,
        maxBufferedEvents: config.usage.maxBufferedEvents,
        logger,
        onStored: (rows) => opened?.journal.stored(rows),
      })
    : null;
  // Before anything is served: what the claimed slot holds from a previous run is stored.
  if (recorder && slot) {
    opened = await openUsageJournal(slot, {
      store,
      sink: recorder,
      logger,
      now,
      batchSize: config.usage.flushBatchSize,
      fsyncIntervalMs: config.usage.journalFsyncMs,
    });
    onFailure.push(opened.close);
  }
  const journal = opened?.journal ?? null;
  recorder?.start();
  if (recorder) onFailure.push(() => recorder.drain(1_000));
  let usageStream: RedisStreamDurability | null = null;
  if (config.usage.durability === 'redis_stream' && !options.usageSink) {
    if (!redis || !transaction) throw new Error('usage.durability redis_stream needs REDIS_URL');
    usageStream = new RedisStreamDurability({
      redis,
      transaction,
      store,
      prefix: config.usage.streamPrefix,
      claimIdleMs: config.usage.streamClaimIdleMs,
      batchSize: config.usage.flushBatchSize,
      eventId: () => newUsageEventId(now()),
      logger,
    });
    const started = usageStream;
    onFailure.push(() => started.close(1_000));
    await started.start();
  }
  const stopRetention = startRetention(store, {
    retentionDays: config.usage.retentionDays,
    now,
    onError: (error) => logger.warn({ err: error }, 'pruning old usage events failed'),
    onPruned: (count) => logger.info({ count }, 'pruned usage events past the retention period'),
    requestLog: config.requestLog.enabled
      ? {
          retentionDays: config.requestLog.retentionDays,
          bodiesRetentionDays: config.requestLog.bodies.retentionDays,
          onPruned: (pruned) => logger.info(pruned, 'pruned the request log past its retention periods'),
        }
      : undefined,
  });

  const metrics = createGatewayMetrics(
    {
      usage: recorder ? () => ({ ...recorder.stats(), ...recorder.pressure() }) : undefined,
      journal: opened
        ? () => {
            const current = opened;
            return { ...current.journal.stats(), replayed: current.replayedEvents(), torn: current.replayed.torn };
          }
        : undefined,
      usageStream: usageStream ? () => usageStream.stats() : undefined,
      streamsInFlight: () => streams.active(),
      redisUp: breaker ? () => breaker.status() === 'ok' : undefined,
    },
    { processMetrics: options.processMetrics, render: options.renderMetrics },
  );

  const durability: UsageDurability | undefined = options.usageDurability ?? journal ?? usageStream ?? undefined;
  // docs/operator-controls.md, spend budgets: counters shared through Redis when there is one.
  const memoryBudgets = createMemoryBudgetStore(now);
  const budgets = createBudgetGuard({
    store:
      redis && breaker
        ? withBudgetFallback(
            options.budgetStore ??
              createRedisBudgetStore({
                redis,
                prefix: options.rateLimitPrefix ?? SHARED_KEY_PREFIX,
                transaction: transaction ?? undefined,
              }),
            memoryBudgets,
            breaker,
          )
        : memoryBudgets,
    spendOfDays: (scope, startDay, endDay) => store.spendOfDays(scope, startDay, endDay),
    flushUsage: async () => {
      await recorder?.flush();
    },
    metrics,
    logger,
    now,
  });
  const readiness = async () => {
    const checks: Record<string, 'ok' | 'down' | 'disabled'> = {};
    checks.database = await store.ping().then(
      () => 'ok' as const,
      () => 'down' as const,
    );
    checks.redis = breaker ? breaker.status() : 'disabled';
    // docs/usage-durability.md: an instance that cannot make usage durable refuses model calls.
    checks.usage_durability = durability ? (durability.available() ? 'ok' : 'down') : 'disabled';
    // With the `open` policy the gateway keeps serving on per-instance limits while Redis is
    // down, so that alone does not make it unready; with `closed` it refuses model calls.
    const redisCritical = config.limits.redisFailure === 'closed';
    return { ready: checks.database === 'ok' && checks.usage_durability !== 'down' && (!redisCritical || checks.redis !== 'down'), checks };
  };

  // docs/routing.md: the deployments' health and the session bindings, shared through Redis when there is one.
  const routing = createRouting({
    config,
    now,
    metrics,
    redis: redis && config.redisUrl ? { client: redis, url: config.redisUrl, prefix: options.rateLimitPrefix ?? SHARED_KEY_PREFIX } : null,
    onError: (error) =>
      logger.warn(
        { err: error },
        'routing state not shared through Redis; deployments and sessions are routed on what this instance knows',
      ),
  });
  onFailure.push(() => routing.close());
  // docs/routing.md, "Operator control": the operator's disables, read at start and every few
  // seconds (at once through Redis when there is one).
  await loadDeploymentStates(store, routing);
  const statesTimer = setInterval(() => {
    loadDeploymentStates(store, routing).catch((error: unknown) => logger.warn({ err: error }, 'reading the deployment states failed'));
  }, DEPLOYMENT_STATES_INTERVAL_MS);
  statesTimer.unref();
  onFailure.push(() => clearInterval(statesTimer));

  const app = createApp({
    config,
    store,
    keys,
    providers,
    limiter,
    usage: options.usageSink ?? (recorder as UsageRecorder),
    requestLog: recorder ?? options.requestLog,
    durability,
    logger,
    readiness,
    openapiDocument: () => buildOpenApiDocument(packageVersion()),
    now,
    generateId,
    metrics,
    streams,
    budgets,
    tracing: tracing ?? undefined,
    routing,
  });

  return {
    app,
    config,
    store,
    keys,
    recorder,
    journal,
    journalSlot: opened?.slot ?? null,
    logger,
    metrics,
    tracing,
    async close(closeOptions = {}) {
      keys.stop();
      await keyEvents?.close();
      clearInterval(statesTimer);
      routing.close();
      stopRetention();
      const drained = recorder ? await recorder.drain(closeOptions.drainTimeoutMs ?? 10_000) : { written: 0, lost: 0 };
      // Segments whose events were all stored are deleted; the rest wait for the next start. Then the slot is free.
      opened?.close();
      await usageStream?.close(closeOptions.drainTimeoutMs ?? 10_000);
      await Promise.allSettled([http.close(), rateStore.close(), options.store ? Promise.resolve() : store.close(), tracing?.shutdown()]);
      // The settlements still waiting for a turn's write (server/redis/turn-transaction.ts).
      await transaction?.flush();
      redis?.disconnect();
      logger.flush();
      return drained;
    },
  };
}
