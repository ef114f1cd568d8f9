import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Config } from '../config/load-config';
import { parseDatabaseUrl } from '../db/database-url';
import type { Logger } from '../logging/logger';
import { withServingFlags } from './serving-flags';

/**
 * `model-gateway serve --workers N` with node:cluster: the primary migrates once, forks N
 * workers that each build a gateway and listen on the shared port (the primary hands out
 * connections), restarts a worker that dies, and on SIGTERM/SIGINT forwards the signal so
 * every worker drains its requests, streams and usage buffer before the primary exits.
 *
 * Workers are separate processes with separate memory, so everything shared must live
 * outside them: rate limits in Redis (hence REDIS_URL is required), keys in the database
 * with Redis key-change messages, usage in the database.
 */

/** Tells a worker its slot (1..N): a worker started in place of a dead one replays the dead one's usage journal. */
export const WORKER_SLOT_VARIABLE = 'GATEWAY_WORKER_SLOT';

const METRICS_REQUEST = 'mg:metrics-request';
const METRICS_RESPONSE = 'mg:metrics-response';
/** Above prom-client's own 5 s collection timeout. */
const METRICS_TIMEOUT_MS = 6_000;
/** A worker dying more often than this in a minute is not transient: stop instead of looping. */
const RESTART_WINDOW_MS = 60_000;
const RESTART_DELAY_MS = 1_000;

export interface PrimaryOptions {
  /** How long workers get to drain after SIGTERM before they are killed. */
  stopTimeoutMs: number;
}

export async function runPrimary(
  config: Config,
  logger: Logger,
  workers: number,
  migrateOnce: () => Promise<string[]>,
  options: PrimaryOptions,
): Promise<number> {
  if (!config.redisUrl) {
    // Each worker would keep its own in-memory buckets: every key would get N times its limits.
    throw new Error(
      `--workers ${workers} needs REDIS_URL: rate limits must be shared by the workers (or run one process per machine without --workers)`,
    );
  }
  if (parseDatabaseUrl(config.databaseUrl).kind === 'sqlite') {
    logger.warn(
      { workers },
      'SQLite with --workers: all workers share one database file (WAL mode, writes take turns); use Postgres for heavy traffic or several machines',
    );
  }
  const applied = await migrateOnce();
  if (applied.length > 0) logger.info({ applied }, 'database migrated');

  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isMessage(message, METRICS_REQUEST)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: METRICS_RESPONSE, id: message.id, text }),
      (error: unknown) => worker.isConnected() && worker.send({ type: METRICS_RESPONSE, id: message.id, error: String(error) }),
    );
  });

  let stopping = false;
  const restarts: number[] = [];
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));
  let exitCode = 0;

  // Workers start with the serving process's Node options even when the primary was started without them.
  cluster.setupPrimary({ execArgv: withServingFlags(process.execArgv) });
  const slots = new Map<number, number>();
  /** Slots whose worker has served: a worker of any other slot that dies failed to start. */
  const served = new Set<number>();
  const fork = (slot: number) => slots.set(cluster.fork({ [WORKER_SLOT_VARIABLE]: String(slot) }).id, slot);
  cluster.on('listening', (worker) => {
    served.add(slots.get(worker.id) ?? 0);
    logger.info({ worker: worker.id, pid: worker.process.pid }, 'worker listening');
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (code !== 0) exitCode = 1;
      logger.info({ worker: worker.id, code, signal }, 'worker stopped');
      if (Object.keys(cluster.workers ?? {}).length === 0) resolveDone(exitCode);
      return;
    }
    if (!served.has(slots.get(worker.id) ?? 0)) {
      // A start that cannot serve (bad configuration, a journal slot held, the database gone)
      // would fail the same way again: stop, so a supervisor sees the failure (README "Deployment").
      logger.fatal({ worker: worker.id, code, signal }, 'a worker failed to start: stopping the cluster');
      exitCode = 1;
      void stop('a worker failed to start');
      return;
    }
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && (restarts[0] ?? now) < now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length > workers * 2) {
      logger.fatal({ worker: worker.id, code, signal, restarts: restarts.length }, 'workers keep dying: stopping the cluster');
      exitCode = 1;
      stop('worker failures');
      return;
    }
    logger.error({ worker: worker.id, code, signal }, 'worker died; starting a new one');
    const slot = slots.get(worker.id) ?? 1;
    slots.delete(worker.id);
    setTimeout(() => !stopping && fork(slot), RESTART_DELAY_MS).unref();
  });

  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    logger.info({ reason, workers: running.length }, 'stopping: workers drain their requests, streams and usage');
    if (running.length === 0) resolveDone(exitCode);
    for (const worker of running) worker.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) {
        if (!worker) continue;
        logger.error({ worker: worker.id }, 'worker did not stop in time: killing it');
        worker.process.kill('SIGKILL');
      }
      exitCode = 1;
    }, options.stopTimeoutMs);
    timer.unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  logger.info({ workers, pid: process.pid }, 'cluster primary: starting workers');
  for (let slot = 1; slot <= workers; slot++) fork(slot);
  return done;
}

export interface WorkerMetrics {
  /** GatewayOptions.renderMetrics: asks the primary for the whole cluster's metrics. */
  render(local: Registry): Promise<string>;
  /** Makes this worker's registry the one the primary collects. */
  attach(registry: Registry): void;
}

/**
 * In a worker: GET /metrics answers for the whole cluster (a scrape through the shared port
 * reaches one worker at random), by asking the primary, which collects every worker's
 * registry over IPC (prom-client's AggregatorRegistry) and sums them. Falls back to this
 * worker's own metrics when the primary does not answer.
 */
export function workerMetrics(): WorkerMetrics {
  // Installs prom-client's listener that answers the primary's collection requests.
  new AggregatorRegistry();
  const pending = new Map<number, (text: string | null) => void>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (!isMessage(message, METRICS_RESPONSE)) return;
    const record = message as { id: number; text?: unknown };
    pending.get(record.id)?.(typeof record.text === 'string' ? record.text : null);
  });
  return {
    attach(registry) {
      AggregatorRegistry.setRegistries([registry]);
    },
    async render(local) {
      const id = nextId++;
      const text = await new Promise<string | null>((resolve) => {
        const timer = setTimeout(() => finish(null), METRICS_TIMEOUT_MS);
        timer.unref();
        function finish(value: string | null) {
          clearTimeout(timer);
          pending.delete(id);
          resolve(value);
        }
        pending.set(id, finish);
        if (!process.send?.({ type: METRICS_REQUEST, id })) finish(null);
      });
      return text ?? local.metrics();
    },
  };
}

function isMessage(message: unknown, type: string): message is { type: string; id: number } {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { type?: unknown }).type === type &&
    typeof (message as { id?: unknown }).id === 'number'
  );
}
