import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from './fast-metrics';

/**
 * The Prometheus metrics of one gateway instance (GET /metrics). One registry per instance,
 * never prom-client's global one: `createApp` may run twice in one process (docs/architecture.md).
 *
 * Label values are bounded: `route` is the contract's path pattern (never the raw path),
 * `model`/`provider` are catalogue ids and provider names (set only after the model was
 * resolved from the catalogue), statuses and limit names are small fixed sets.
 */
export interface GatewayMetrics {
  registry: Registry;
  requests: FastCounter<'route' | 'method' | 'status' | 'model' | 'provider'>;
  requestDuration: FastHistogram<'route' | 'method' | 'status_class'>;
  overhead: FastHistogram<'route'>;
  upstreamDuration: FastHistogram<'provider' | 'model' | 'deployment' | 'stream' | 'outcome'>;
  /** docs/routing.md: cooldowns started or extended, per deployment. */
  deploymentCooldowns: FastCounter<'model' | 'deployment'>;
  /** docs/routing.md: requests with a session that found their bound deployment (hit) or not (miss). */
  affinity: FastCounter<'model' | 'outcome'>;
  tokens: FastCounter<'model' | 'provider' | 'type'>;
  rateLimitRejections: FastCounter<'route' | 'limit'>;
  /** docs/operator-controls.md, spend budgets: thresholds crossed, once per window. */
  budgetAlerts: FastCounter<'scope' | 'threshold'>;
  /** The Prometheus text of this instance (or, in a cluster worker, of the whole cluster). */
  render(): Promise<string>;
  contentType: string;
}

export interface UsageBufferStats {
  buffered: number;
  dropped: number;
  lost: number;
  written: number;
  /** The writer's back-pressure (UsageRecorder.pressure); absent where a test leaves it out. */
  oldestBufferedMs?: number;
  writes?: number;
  writeMs?: number;
}

/** What the gauges read at scrape time; each is optional (tests replace parts of the gateway). */
export interface MetricsSources {
  usage?: () => UsageBufferStats;
  streamsInFlight?: () => number;
  redisUp?: () => boolean | null;
  /** The usage journal (docs/usage-durability.md). */
  journal?: () => UsageJournalMetrics;
  /** The usage Redis Stream (`usage.durability: redis_stream`), sampled from Redis at scrape time. */
  usageStream?: () => Promise<UsageStreamMetrics>;
}

/** docs/usage-durability.md, "Metrics": the Redis Stream's counterparts of the journal's gauges. */
export interface UsageStreamMetrics {
  /** Entries in the stream: events not stored yet, of every instance. */
  length: number;
  /** Entries read by an instance and not acknowledged (being stored, or left by a dead one). */
  pending: number;
  /** Bytes Redis uses for the stream (MEMORY USAGE, sampled). */
  bytes: number;
  /** This instance's calls in flight. */
  inFlight: number;
  /** Events this instance stored from the stream since it started. */
  stored: number;
}

export interface UsageJournalMetrics {
  bytes: number;
  pending: number;
  /** Events and interrupted calls the start replayed from the journal. */
  replayed: number;
  /** Torn or unreadable entries the start dropped. */
  torn: number;
}

export interface GatewayMetricsOptions {
  /** Process metrics (CPU, memory, event-loop lag, GC): on for `serve`, off in tests. */
  processMetrics?: boolean;
  /** Replaces `render` (cluster workers aggregate through the primary). */
  render?: (registry: Registry) => Promise<string>;
}

/** Request latencies: from well under a millisecond (cached errors) to long streams. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** The gateway's own time: it should stay in the sub-millisecond to few-millisecond range. */
const OVERHEAD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const UPSTREAM_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export function createGatewayMetrics(sources: MetricsSources = {}, options: GatewayMetricsOptions = {}): GatewayMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  // The request path's metrics: fast-metrics.ts (same output, a fraction of the cost per call).
  const requests = new FastCounter(
    'gateway_http_requests_total',
    'HTTP requests answered, by route pattern, method, status and (model routes) catalogue model and provider.',
    ['route', 'method', 'status', 'model', 'provider'] as const,
    registers,
  );
  const requestDuration = new FastHistogram(
    'gateway_http_request_duration_seconds',
    'Time from receiving a request to the end of its response (whole stream included).',
    ['route', 'method', 'status_class'] as const,
    REQUEST_BUCKETS,
    registers,
  );
  const overhead = new FastHistogram(
    'gateway_overhead_seconds',
    'Gateway time until the response headers, minus the time spent waiting for the upstream (x-gateway-overhead-ms).',
    ['route'] as const,
    OVERHEAD_BUCKETS,
    registers,
  );
  const upstreamDuration = new FastHistogram(
    'gateway_upstream_duration_seconds',
    'One upstream call: until the reply (non-streamed) or its response headers (streamed); per attempt, retries and fallbacks included.',
    ['provider', 'model', 'deployment', 'stream', 'outcome'] as const,
    UPSTREAM_BUCKETS,
    registers,
  );
  const deploymentCooldowns = new FastCounter(
    'gateway_deployment_cooldowns_total',
    'Cooldowns of a deployment started or extended by its failures (docs/routing.md).',
    ['model', 'deployment'] as const,
    registers,
  );
  const affinity = new FastCounter(
    'gateway_affinity_total',
    'Requests with a session id: routed to their bound deployment (hit) or not (miss: new session, or its deployment unavailable).',
    ['model', 'outcome'] as const,
    registers,
  );
  const tokens = new FastCounter(
    'gateway_tokens_total',
    'Tokens billed, by catalogue model, provider and type (prompt, completion).',
    ['model', 'provider', 'type'] as const,
    registers,
  );
  const rateLimitRejections = new FastCounter(
    'gateway_rate_limit_rejections_total',
    'Requests refused with 429, by route and limit (requests, tokens, budget, streams, usage_key, usage_ip).',
    ['route', 'limit'] as const,
    registers,
  );

  const budgetAlerts = new FastCounter(
    'gateway_budget_alerts_total',
    'Spend budgets whose settled spend reached an alert threshold in a period, by scope (key, account) and threshold.',
    ['scope', 'threshold'] as const,
    registers,
  );

  const { usage, streamsInFlight, redisUp, journal, usageStream } = sources;
  /** A gauge set to `read()` at each scrape. */
  const sampledGauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  if (usageStream) {
    // One Redis round trip per scrape, shared by the gauges below.
    let sample: { at: number; stats: Promise<UsageStreamMetrics> } | null = null;
    const read = (): Promise<UsageStreamMetrics> => {
      const at = Date.now();
      if (sample === null || at - sample.at > 1_000) sample = { at, stats: usageStream() };
      return sample.stats;
    };
    const gauge = (name: string, help: string, pick: (stats: UsageStreamMetrics) => number) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          // Redis unreachable: the gauges keep their last values (gateway_redis_up says why).
          const stats = await read().catch(() => null);
          if (stats) this.set(pick(stats));
        },
      });
    gauge('gateway_usage_stream_length', 'Usage events in the Redis Stream not stored yet (all instances).', (stats) => stats.length);
    gauge(
      'gateway_usage_stream_pending_entries',
      'Usage stream entries read by an instance and not acknowledged yet (being stored, or left by a dead instance).',
      (stats) => stats.pending,
    );
    gauge('gateway_usage_stream_bytes', 'Bytes Redis uses for the usage stream (sampled).', (stats) => stats.bytes);
    gauge('gateway_usage_stream_in_flight_calls', "This instance's calls in flight, kept in Redis.", (stats) => stats.inFlight);
    gauge(
      'gateway_usage_stream_stored_events',
      'Usage events this instance stored from the stream since it started.',
      (stats) => stats.stored,
    );
  }
  if (journal) {
    const gauge = (name: string, help: string, read: (stats: UsageJournalMetrics) => number) =>
      sampledGauge(name, help, () => read(journal()));
    gauge('gateway_usage_journal_bytes', 'Bytes in the usage journal files of this instance.', (stats) => stats.bytes);
    gauge('gateway_usage_journal_pending_events', 'Journaled usage events not stored yet, plus calls in flight.', (stats) => stats.pending);
    gauge(
      'gateway_usage_journal_replayed_events',
      'Usage events (interrupted calls included) replayed from the slot of this instance at start and from the slots of dead instances it adopted.',
      (stats) => stats.replayed,
    );
    gauge('gateway_usage_journal_torn_entries', 'Torn or unreadable journal entries dropped at start.', (stats) => stats.torn);
  }
  if (usage) {
    sampledGauge('gateway_usage_buffered_events', 'Usage events waiting in memory to be written to the database.', () => usage().buffered);
    // Counters that mirror the recorder's own totals: advanced by the difference at scrape time.
    const mirrored = (name: string, help: string, read: (stats: UsageBufferStats) => number) => {
      let seen = 0;
      new Counter({
        name,
        help,
        registers,
        collect() {
          const value = read(usage());
          if (value > seen) this.inc(value - seen);
          seen = Math.max(seen, value);
        },
      });
    };
    new Gauge({
      name: 'gateway_usage_oldest_buffered_seconds',
      help: 'Age of the oldest usage event waiting in memory or being written; 0 when none.',
      registers,
      // Across cluster workers: the oldest.
      aggregator: 'max',
      collect() {
        this.set((usage().oldestBufferedMs ?? 0) / 1000);
      },
    });
    mirrored('gateway_usage_written_events_total', 'Usage events written to the database.', (stats) => stats.written);
    mirrored('gateway_usage_writes_total', 'Usage batch writes attempted, successful or not.', (stats) => stats.writes ?? 0);
    mirrored(
      'gateway_usage_write_seconds_total',
      'Time spent writing usage batches: its rate is the share of the time the writer is busy (1 = saturated).',
      (stats) => (stats.writeMs ?? 0) / 1000,
    );
    mirrored(
      'gateway_usage_dropped_events_total',
      'Usage events dropped because the buffer was full (database down too long).',
      (stats) => stats.dropped,
    );
    mirrored('gateway_usage_lost_events_total', 'Usage events still unwritten when a shutdown drain gave up.', (stats) => stats.lost);
  }
  if (streamsInFlight) {
    sampledGauge('gateway_streams_in_flight', 'Streamed chat completions currently open.', streamsInFlight);
  }
  if (redisUp) {
    new Gauge({
      name: 'gateway_redis_up',
      help: '1 while the shared rate-limit store (Redis) answers, 0 while limits are degraded; absent without Redis.',
      registers,
      // Across cluster workers: 0 as soon as one worker has lost Redis.
      aggregator: 'min',
      collect() {
        const up = redisUp();
        if (up !== null) this.set(up ? 1 : 0);
      },
    });
  }

  const render = options.render ?? ((local: Registry) => local.metrics());
  return {
    registry,
    requests,
    requestDuration,
    overhead,
    upstreamDuration,
    deploymentCooldowns,
    affinity,
    tokens,
    rateLimitRejections,
    budgetAlerts,
    render: () => render(registry),
    contentType: registry.contentType,
  };
}
