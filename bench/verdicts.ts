/** The final table of `npm run bench`: each measurement against its target of docs/performance.md. */
import { IDLE_GC_QUIET_MS } from '../server/http-server';
import type { BenchRow } from './bench-table';
import { cpuPerRequest, percentile, type TargetStats } from './report';

/** The targets of docs/performance.md (the verdict column). */
const CPU_RATIO_TARGET = 2;
const TRANSLATED_CPU_RATIO_TARGET = 2.5;
const PASS_THROUGH_CPU_RATIO_TARGET = 1.5;
const ADDED_P50_TARGET_MS = 0.6;
const ADDED_P99_TARGET_MS = 2;
const FIRST_BYTE_TARGET_MS = 1;
const RSS_TARGET_MIB = 150;
/** docs/tracing.md: what traces on may add to the CPU per request of the same gateway with traces off. */
const TRACES_CPU_TARGET = 0.1;
/**
 * docs/performance.md: the gateway on Postgres + Redis against the same gateway on SQLite in
 * the same run (`--postgres`): CPU per request, and the latency it adds at 64 connections.
 */
const POSTGRES_CPU_OVER_SQLITE_TARGET = 1.3;
const POSTGRES_ADDED_P99_OVER_SQLITE_TARGET = 3;

/**
 * docs/performance.md: what "adds no measurable CPU per request" allows (the request log, traces
 * off): a smaller difference is within the drift of the shared 2-core VM between alternating rounds.
 */
const NOT_MEASURABLE = 0.05;
/** Quiet time before RSS is read: the idle collection (after IDLE_GC_QUIET_MS, checked every second) and the release of its pages. */
export const RSS_SETTLE_MS = IDLE_GC_QUIET_MS + 7_000;
export const SLOW_DELAY_MS = 50;

/**
 * Requests sent to the gateway, for the usage check. wrk stops mid-flight: the requests it cut
 * off may or may not have reached the point where the gateway bills them (a request whose
 * client left before it was read is not a request), so for its scenarios usage must lie
 * between what was answered and what was sent; everything else is counted exactly.
 */
export interface UsageCount {
  loadSent: number;
  loadAnswered: number;
  /** Usage events stored once wrk's scenarios were over. */
  loadRecorded: number;
  exactSent: number;
}

export interface Probes {
  /** p50 and p99 of the time to the first body bytes of a stream, per target, ms. */
  firstByte: Record<string, { p50: number; p99: number; failures: number }>;
  spread: { firstByteMs: number; endMs: number; ok: boolean };
  open: { count: number; maxOpen: number; failures: number; seconds: number; rssMiB: number };
}

/** The options of the run that the verdicts read. */
interface VerdictOptions {
  durability: string | null;
  chunks: number;
  /** `--traces`: traces on and the request log off measured beside the gateway. */
  traces: boolean;
  /** `--compare`: the other gateway, with `--traces` a build without tracing. */
  compare: string | null;
}

export const durabilityTarget = (mode: string | null): string => `gateway (${mode ?? ''} durability)`;
export const TRACES_TARGET = 'gateway (traces on)';
export const SQLITE_TARGET = 'gateway (SQLite)';
export const REQUEST_LOG_OFF_TARGET = 'gateway (request log off)';
export const OTHER_TARGET = 'other gateway';
export const DEPLOYMENTS_TARGET = 'gateway (three deployments)';

/** The variants whose verdict is a feature's cost over the gateway, measured in paired rounds (bench/paired-rounds.ts). */
export const PAIRED_TARGETS: ReadonlySet<string> = new Set([TRACES_TARGET, REQUEST_LOG_OFF_TARGET, DEPLOYMENTS_TARGET, OTHER_TARGET]);

/**
 * A feature's CPU per request over the same gateway without it, judged against `limit` (a
 * share) on the median of the paired rounds' ratios: in each the two gateways ran under load
 * at once, through the same spells of the machine (docs/performance.md, "Reading the table").
 * The rounds' range and the sequential rounds' pooled figures are shown beside it. `variant`
 * is the gateway with the feature changed; `variantHasIt` says whether it is the one with it.
 */
function addedCpuRow(
  metric: string,
  variant: TargetStats,
  gateway: TargetStats,
  variantHasIt: boolean,
  limit: number,
  within: string,
): BenchRow {
  const [withIt, without] = variantHasIt ? [variant, gateway] : [gateway, variant];
  const pooled = cpuPerRequest(withIt) / cpuPerRequest(without) - 1;
  // Every scenario these rows judge has paired rounds (bench/run.ts); without them, the pooled figures.
  const paired = variant.pairedCpu ?? { variant: [], gateway: [] };
  const [withRounds, withoutRounds] = variantHasIt ? [paired.variant, paired.gateway] : [paired.gateway, paired.variant];
  const ratios = withRounds.map((cpu, round) => cpu / (withoutRounds[round] ?? Number.NaN) - 1).filter(Number.isFinite);
  const added = ratios.length > 0 ? percentile(ratios, 0.5) : pooled;
  const percent = (share: number) => `${share < 0 ? '−' : '+'}${Math.abs(100 * share).toFixed(0)}%`;
  const rounds = ratios.length > 1 ? ` (${percent(Math.min(...ratios))} to ${percent(Math.max(...ratios))})` : '';
  return {
    metric,
    value:
      `${ratios.length > 0 ? `${percent(added)} by paired round${rounds}` : 'no paired round'}; ` +
      `${Math.round(cpuPerRequest(withIt))} µs over ${Math.round(cpuPerRequest(without))} µs = ${percent(pooled)} pooled`,
    target: `<= ${100 * limit}%${within}`,
    verdict: added <= limit ? 'PASS' : 'FAIL',
  };
}

export function verdicts(
  results: Record<string, TargetStats[]>,
  probes: Probes,
  rss: { settled: number; atEnd: number },
  finished: { exitCode: number | null; usageEvents: number },
  usage: UsageCount,
  options: VerdictOptions,
): BenchRow[] {
  const rows: BenchRow[] = [];
  const find = (id: string, target: string) => results[id]?.find((entry) => entry.target === target);
  for (const [id, label, judged, ratioTarget] of [
    ['chat', 'non-streaming chat', true, CPU_RATIO_TARGET],
    ['stream', 'streaming chat', true, CPU_RATIO_TARGET],
    // docs/performance.md: a translated route may cost up to 2.5x the bare proxy's chat stream,
    ['responses-stream', 'responses -> chat stream', true, TRANSLATED_CPU_RATIO_TARGET],
    // the Messages pass-through stream 1.5x the bare proxy's relay of the same stream.
    ['messages-stream', 'messages pass-through stream', true, PASS_THROUGH_CPU_RATIO_TARGET],
    ['messages-translated', 'messages -> chat stream', true, TRANSLATED_CPU_RATIO_TARGET],
    // and a chat stream to Bedrock (signed, binary framing decoded) 2.5x the bare proxy's relay of the same stream.
    ['bedrock-stream', 'chat -> Bedrock ConverseStream', true, TRANSLATED_CPU_RATIO_TARGET],
    ['embed-float', 'embeddings float', false, CPU_RATIO_TARGET],
    ['embed-base64', 'embeddings base64', false, CPU_RATIO_TARGET],
  ] as const) {
    const gateway = find(id, 'gateway');
    const proxy = find(id, 'bare proxy');
    if (!gateway || !proxy) continue;
    const ratio = cpuPerRequest(gateway) / cpuPerRequest(proxy);
    rows.push({
      metric: `CPU per request, ${label} (64 conn.)`,
      value: `${Math.round(cpuPerRequest(gateway))} µs = ${ratio.toFixed(2)}x bare proxy (${Math.round(cpuPerRequest(proxy))} µs)`,
      target: judged ? `<= ${ratioTarget}x` : '',
      verdict: judged ? (ratio <= ratioTarget ? 'PASS' : 'FAIL') : 'info',
    });
    const onSqlite = find(id, SQLITE_TARGET);
    const mock = find(id, 'mock');
    if (onSqlite && mock) rows.push(...overSqlite(label, judged, gateway, onSqlite, mock));
    const other = options.durability ? find(id, durabilityTarget(options.durability)) : undefined;
    if (other) {
      const cost = cpuPerRequest(gateway) - cpuPerRequest(other);
      rows.push({
        metric: `  usage.durability default over ${options.durability}, ${label}: its cost`,
        value: `${Math.round(cost)} µs/req = ${((100 * cost) / cpuPerRequest(gateway)).toFixed(0)}% of the gateway's`,
        target: '~10%',
        verdict: 'info',
      });
    }
    // docs/tracing.md, docs/request-log.md: what observability costs a request.
    const traced = find(id, TRACES_TARGET);
    if (traced)
      rows.push(addedCpuRow(`  traces on, ${label}: CPU per request over traces off`, traced, gateway, true, TRACES_CPU_TARGET, ''));
    const unlogged = find(id, REQUEST_LOG_OFF_TARGET);
    if (unlogged) {
      const metric = `  request log on (bodies off), ${label}: CPU per request over off`;
      rows.push(addedCpuRow(metric, unlogged, gateway, false, NOT_MEASURABLE, ' (noise)'));
    }
    const routed = find(id, DEPLOYMENTS_TARGET);
    if (routed) {
      const metric = `  three deployments, ${label}: CPU per request over one`;
      rows.push(addedCpuRow(metric, routed, gateway, true, NOT_MEASURABLE, ' (noise)'));
    }
    const withoutTracing = options.traces ? find(id, OTHER_TARGET) : undefined;
    if (withoutTracing) {
      const metric = `  traces off, ${label}: CPU per request over the other gateway (without tracing)`;
      rows.push(addedCpuRow(metric, withoutTracing, gateway, false, NOT_MEASURABLE, ' (noise)'));
    }
    const json = find(id, 'json proxy');
    if (json) {
      rows.push({
        metric: `  json proxy, ${label}: the gateway's features cost`,
        value: `${Math.round(cpuPerRequest(gateway) - cpuPerRequest(json))} µs (json proxy ${Math.round(cpuPerRequest(json))} µs = ${(cpuPerRequest(json) / cpuPerRequest(proxy)).toFixed(2)}x)`,
        target: '',
        verdict: 'info',
      });
    }
  }
  if (options.traces && options.compare === null) {
    rows.push({
      metric: '  traces off: CPU per request over a build without tracing',
      value: 'not measured: give --compare DIR, a checkout without tracing',
      target: `<= ${100 * NOT_MEASURABLE}% (noise)`,
      verdict: 'info',
    });
  }
  const single = find('chat-1', 'gateway');
  const singleMock = find('chat-1', 'mock');
  if (single && singleMock) {
    const p50 = single.p50Ms - singleMock.p50Ms;
    const p99 = single.p99Ms - singleMock.p99Ms;
    rows.push({
      metric: 'added latency p50, 1 connection',
      value: `${p50.toFixed(2)} ms`,
      target: `<= ${ADDED_P50_TARGET_MS} ms`,
      verdict: p50 <= ADDED_P50_TARGET_MS ? 'PASS' : 'FAIL',
    });
    rows.push({
      metric: 'added latency p99, 1 connection',
      value: `${p99.toFixed(2)} ms`,
      target: `<= ${ADDED_P99_TARGET_MS} ms`,
      verdict: p99 <= ADDED_P99_TARGET_MS ? 'PASS' : 'FAIL',
    });
    // Of the added time, the part spent in the gateway itself (its header: until the reply's
    // headers, minus the wait for the upstream); the rest is the second network hop and the
    // wait for the mock's answer, with whatever the machine's scheduling adds to them.
    if (single.overheadP50Ms !== undefined && single.overheadP99Ms !== undefined) {
      rows.push({
        metric: "gateway's own time (x-gateway-overhead-ms), 1 connection",
        value: `p50 ${single.overheadP50Ms.toFixed(2)} ms, p99 ${single.overheadP99Ms.toFixed(2)} ms`,
        target: '',
        verdict: 'info',
      });
    }
  }
  const firstByte = probes.firstByte.gateway;
  const firstByteMock = probes.firstByte.mock;
  if (firstByte && firstByteMock) {
    const added = firstByte.p50 - firstByteMock.p50;
    rows.push({
      metric: "stream first byte after the upstream's, p50",
      value: `${added.toFixed(2)} ms (p99 ${(firstByte.p99 - firstByteMock.p99).toFixed(2)} ms)`,
      target: `<= ${FIRST_BYTE_TARGET_MS} ms`,
      verdict: added <= FIRST_BYTE_TARGET_MS && firstByte.failures === 0 ? 'PASS' : 'FAIL',
    });
  }
  const firstByteSqlite = probes.firstByte[SQLITE_TARGET];
  if (firstByteSqlite && firstByteMock) {
    rows.push({
      metric: "  the same on SQLite: stream first byte after the upstream's, p50",
      value: `${(firstByteSqlite.p50 - firstByteMock.p50).toFixed(2)} ms (p99 ${(firstByteSqlite.p99 - firstByteMock.p99).toFixed(2)} ms)`,
      target: '',
      verdict: 'info',
    });
  }
  // Events SLOW_DELAY_MS apart upstream: the first must reach the client long before the last.
  const { spread } = probes;
  const incremental =
    spread.ok && spread.firstByteMs < 2 * SLOW_DELAY_MS + 20 && spread.endMs - spread.firstByteMs >= options.chunks * SLOW_DELAY_MS * 0.8;
  rows.push({
    metric: `no whole-body buffering (events ${SLOW_DELAY_MS} ms apart upstream)`,
    value: `first event at ${spread.firstByteMs.toFixed(0)} ms, end at ${spread.endMs.toFixed(0)} ms`,
    target: 'events as they come',
    verdict: incremental ? 'PASS' : 'FAIL',
  });
  const { open } = probes;
  rows.push({
    metric: `concurrent open streams (${open.count.toLocaleString('en-US')} at once)`,
    value: `${open.maxOpen.toLocaleString('en-US')} open, ${open.failures} failed, peak RSS ${open.rssMiB.toFixed(0)} MiB`,
    target: `${open.count.toLocaleString('en-US')}, 0 failed`,
    verdict: open.maxOpen === open.count && open.failures === 0 ? 'PASS' : 'FAIL',
  });
  rows.push({
    metric: `gateway RSS after the runs (${RSS_SETTLE_MS / 1000} s quiet)`,
    value: `${rss.settled.toFixed(0)} MiB (${rss.atEnd.toFixed(0)} MiB as the load stopped)`,
    target: `<= ${RSS_TARGET_MIB} MiB`,
    verdict: rss.settled <= RSS_TARGET_MIB ? 'PASS' : 'FAIL',
  });
  const errors = Object.values(results).reduce((sum, stats) => sum + (stats.find((entry) => entry.target === 'gateway')?.errors ?? 0), 0);
  rows.push({
    metric: 'gateway errors (socket errors, non-2xx)',
    value: String(errors),
    target: '0',
    verdict: errors === 0 ? 'PASS' : 'FAIL',
  });
  const exactRecorded = finished.usageEvents - usage.loadRecorded;
  const drained = finished.exitCode === 0 ? '' : ` (exit ${finished.exitCode}: usage lost at drain)`;
  rows.push({
    metric: 'usage events = requests sent (1-connection client, probes)',
    value: `${exactRecorded.toLocaleString('en-US')} / ${usage.exactSent.toLocaleString('en-US')}${drained}`,
    target: 'equal, none lost',
    verdict: exactRecorded === usage.exactSent && finished.exitCode === 0 ? 'PASS' : 'FAIL',
  });
  const inRange = usage.loadAnswered <= usage.loadRecorded && usage.loadRecorded <= usage.loadSent;
  rows.push({
    metric: 'usage events, wrk scenarios (wrk cuts requests off when it stops)',
    value: `${usage.loadRecorded.toLocaleString('en-US')}: ${usage.loadAnswered.toLocaleString('en-US')} answered, ${(usage.loadSent - usage.loadAnswered).toLocaleString('en-US')} cut off`,
    target: 'answered <= events <= sent',
    verdict: inRange ? 'PASS' : 'FAIL',
  });
  return rows;
}

/** `--postgres`: this gateway (Postgres + Redis) against the same gateway on SQLite, measured in the same rounds. */
function overSqlite(label: string, judged: boolean, gateway: TargetStats, sqlite: TargetStats, mock: TargetStats): BenchRow[] {
  const ratio = cpuPerRequest(gateway) / cpuPerRequest(sqlite);
  const added = gateway.p99Ms - mock.p99Ms;
  const addedSqlite = sqlite.p99Ms - mock.p99Ms;
  // An added p99 within the mock's own noise (at or below zero) on SQLite is judged against 1 ms.
  const addedRatio = added / Math.max(addedSqlite, 1);
  return [
    {
      metric: `  Postgres + Redis over SQLite, ${label}: CPU per request`,
      value: `${ratio.toFixed(2)}x the gateway on SQLite (${Math.round(cpuPerRequest(sqlite))} µs)`,
      target: judged ? `<= ${POSTGRES_CPU_OVER_SQLITE_TARGET}x` : '',
      verdict: judged ? (ratio <= POSTGRES_CPU_OVER_SQLITE_TARGET ? 'PASS' : 'FAIL') : 'info',
    },
    {
      metric: `  Postgres + Redis over SQLite, ${label}: added p99 (64 conn.)`,
      value: `${added.toFixed(2)} ms, SQLite ${addedSqlite.toFixed(2)} ms: ${addedRatio.toFixed(2)}x`,
      target: judged ? `<= ${POSTGRES_ADDED_P99_OVER_SQLITE_TARGET}x` : '',
      verdict: judged ? (addedRatio <= POSTGRES_ADDED_P99_OVER_SQLITE_TARGET ? 'PASS' : 'FAIL') : 'info',
    },
  ];
}
