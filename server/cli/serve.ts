import cluster from 'node:cluster';
import type { Server } from 'node:http';
import net from 'node:net';
import type { Config } from '../config/load-config';
import { parseDatabaseUrl, redact } from '../db/database-url';
import { migrate } from '../db/migrate';
import { createGateway, type GatewayOptions } from '../gateway';
import { createHttpServer } from '../http-server';
import { createLogger, type Logger } from '../logging/logger';
import { runPrimary, WORKER_SLOT_VARIABLE, workerMetrics, type WorkerMetrics } from './cluster';

/** How long SIGTERM waits for in-flight requests and streams before closing them. */
export const DRAIN_REQUESTS_MS = 15_000;
/** How long the usage buffer may take to reach the database after that. */
export const DRAIN_USAGE_MS = 10_000;
/** Longest a log line waits in the buffered destination. */
const LOG_FLUSH_INTERVAL_MS = 1_000;

export interface ServeOptions {
  /** `--workers N`: N cluster workers sharing the port (1 = this process serves). */
  workers?: number;
}

/**
 * `model-gateway serve`: migrate, build, listen; on SIGTERM/SIGINT stop accepting, let
 * in-flight requests and streams finish (bounded), flush every buffered usage event, exit.
 * With `--workers N` this process is the cluster primary (migrates once, forks N workers,
 * forwards SIGTERM to them); a worker runs the same command and lands in `serveInstance`.
 */
export async function serve(config: Config, options: ServeOptions = {}): Promise<number> {
  const logger = createLogger({ level: config.logLevel });
  // The log destination is buffered (the request path never waits on it); at low traffic a
  // line could otherwise sit in the buffer indefinitely.
  const flusher = setInterval(() => logger.flush(), LOG_FLUSH_INTERVAL_MS);
  flusher.unref();
  if (cluster.isWorker) {
    const worker = logger.child({ worker: cluster.worker?.id });
    const code = await serveInstance(config, worker, workerMetrics());
    // The IPC channel to the primary would keep this process alive.
    process.disconnect?.();
    return code;
  }
  if (!config.adminToken) {
    // Said once at start, by the process that owns the port: otherwise a 401 on /v1/admin or a
    // dashboard that cannot sign in is the first sign (docs/configuration.md).
    logger.warn(
      'GATEWAY_ADMIN_TOKEN is not set: the admin API (/v1/admin) and the dashboard are off; manage accounts and keys with the model-gateway CLI',
    );
  }
  const workers = options.workers ?? 1;
  if (workers > 1) {
    await checkPortFree(config.server.host, config.server.port);
    // Workers drain requests, then usage; the margin covers their start and exit.
    const stopTimeoutMs = DRAIN_REQUESTS_MS + DRAIN_USAGE_MS + 5_000;
    return runPrimary(config, logger, workers, () => migrateWithRetry(config, logger), { stopTimeoutMs });
  }

  // A port that is taken fails the start before the database or the usage journal is touched.
  await checkPortFree(config.server.host, config.server.port);
  const applied = await migrateWithRetry(config, logger);
  if (applied.length > 0) logger.info({ applied }, 'database migrated');
  return serveInstance(config, logger, null);
}

/** One serving process: build the gateway, listen, drain on SIGTERM. Migrations are done. */
async function serveInstance(config: Config, logger: Logger, clusterMetrics: WorkerMetrics | null): Promise<number> {
  // docs/usage-durability.md, "One directory, one process": a cluster worker prefers its slot's
  // journal (a replacement takes over a dead worker's); any process takes the next free slot
  // when that one is held, unless USAGE_JOURNAL_DIR fixed it.
  const preferredSlot = cluster.isWorker ? Number(process.env[WORKER_SLOT_VARIABLE] ?? cluster.worker?.id ?? 1) : 1;
  const options: GatewayOptions = {
    logger,
    processMetrics: true,
    usageJournal: { base: config.usage.journalDir, preferredSlot, fixed: config.usage.journalDirFixed },
  };
  if (clusterMetrics) options.renderMetrics = (local) => clusterMetrics.render(local);
  const gateway = await createGateway(config, options);
  clusterMetrics?.attach(gateway.metrics.registry);
  const server = createHttpServer(gateway.app, config.server);

  try {
    await listen(server, config.server.host, config.server.port);
  } catch (error) {
    // Nothing was served: give the journal slot and the connections back, then fail the start.
    await gateway.close({ drainTimeoutMs: 1_000 });
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.server.port;
  logger.info(
    {
      host: config.server.host,
      port,
      database: redact(config.databaseUrl),
      redis: config.redisUrl ? 'on' : 'off',
      config: config.source,
      usageJournal: gateway.journalSlot?.directory,
    },
    'gateway listening',
  );
  logger.flush();

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'draining: no new connections, finishing in-flight requests');
      await closeServer(server, DRAIN_REQUESTS_MS);
      const drained = await gateway.close({ drainTimeoutMs: DRAIN_USAGE_MS });
      logger.info(drained, 'usage flushed; bye');
      logger.flush();
      resolve(drained.lost > 0 ? 1 : 0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}

/** Listens, or fails with one line naming the address (`EADDRINUSE`: another process has the port). */
function listen(server: net.Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `cannot listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the address is in use by another process' : error.message}`,
          { cause: error },
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
}

/** Fails as `listen` would when the port is taken; port 0 (any free port) always passes. */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await listen(probe, host, port);
  await new Promise((resolve) => probe.close(resolve));
}

/** How often, while draining, sockets that went idle after their last response are closed. */
const IDLE_SWEEP_MS = 100;

function closeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    // A keep-alive socket becomes idle when its in-flight response ends, after the
    // closeIdleConnections() below: without the sweep it would hold close() open for the
    // whole timeout. Requests still arriving on such sockets are answered with
    // `Connection: close`, so clients stop reusing them.
    server.prependListener('request', (_request, response) => response.setHeader('connection', 'close'));
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweep.unref();
    const timer = setTimeout(() => {
      clearInterval(sweep);
      server.closeAllConnections();
      resolve();
    }, timeoutMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      clearInterval(sweep);
      resolve();
    });
    // Idle keep-alive sockets would otherwise hold close() open until they time out.
    server.closeIdleConnections();
  });
}

/** Attempts at start before giving up (about 75 s in all): a database starting beside us gets time. */
const MIGRATE_ATTEMPTS = 10;

/**
 * The database may still be starting (compose, Kubernetes): retry with backoff, logging a
 * clear line each time; after the last attempt fail with a one-line message naming it.
 */
async function migrateWithRetry(config: Config, logger: Logger): Promise<string[]> {
  const database = redact(config.databaseUrl);
  for (let attempt = 1; ; attempt++) {
    try {
      return (await migrate(config.databaseUrl)).applied;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // A failing migration file is not an outage, nor is an SQLite file that cannot be
      // opened: retrying would fail the same way.
      if (reason.startsWith('Migration ') || parseDatabaseUrl(config.databaseUrl).kind !== 'postgres') throw error;
      if (attempt >= MIGRATE_ATTEMPTS) {
        throw new Error(`cannot reach the database ${database} (${reason}); gave up after ${attempt} attempts`, { cause: error });
      }
      const retryInMs = Math.min(500 * 2 ** attempt, 10_000);
      logger.error(
        { err: error, attempt, of: MIGRATE_ATTEMPTS, retryInMs, database },
        `database unreachable at start (${reason}); retrying`,
      );
      logger.flush();
      await new Promise((resolve) => setTimeout(resolve, retryInMs));
    }
  }
}
