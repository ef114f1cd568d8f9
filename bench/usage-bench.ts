import path from 'node:path';
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { UsageSectionSchema } from '../server/config/schema';
import { createStore } from '../server/db/create-store';
import { migrate } from '../server/db/migrate';
import type { Store, UsageEventRow } from '../server/db/types';
import { UsageRecorder } from '../server/usage/recorder';
import type { UsageEvent } from '../server/usage/types';
import { formatDay, parseDay, shanghaiDay } from '../server/usage/shanghai-day';
import { newUsageEventId } from '../server/usage/usage-event-id';
import { ShanghaiDayCache, toUsageEventRow } from '../server/usage/usage-event-row';
import { createUsageReporter } from '../server/usage/usage-report';
import { benchQuery, createBenchDatabase } from './bench-database';
import { formatTable, type BenchRow } from './bench-table';
import { percentile } from './report';
import { createPopulation, traffic, type TrafficOptions } from './usage-bench-data';

export type { BenchRow } from './bench-table';

/**
 * The usage benchmark (docs/performance.md: 1,000,000 events over 90 days and 1,000 keys
 * in Postgres; the 92-day report answers in under 50 ms): a fresh database holding 90 days of
 * history, written through the real UsageRecorder; then the 92-day report of account 0, through
 * the real reporter. Targets: the recorder sustains >= 5,000 events/s; the report answers in
 * < 50 ms. Each layout runs on its own database:
 * - `spread`: the 1,000 keys over 10 accounts of 100, the events evenly over the accounts (the
 *   realistic case: a report covers one account).
 * - `single`: one account of `bigAccountKeys` keys taking half the events, beside 9 accounts of
 *   100 keys: the worst case (its JSON alone is several MiB), the report of a 1,000-key account.
 * The report target is judged on both.
 */
export type UsageBenchLayout = 'spread' | 'single';

export const USAGE_BENCH_LAYOUTS: Record<UsageBenchLayout, { accounts: number; bigAccountShare: number; label: string }> = {
  spread: { accounts: 10, bigAccountShare: 0.1, label: 'spread: 10 accounts x 100 keys' },
  single: { accounts: 10, bigAccountShare: 0.5, label: 'single: 1 account x {big} keys + 9 x 100' },
};

export interface UsageBenchOptions {
  dialect: 'postgres' | 'sqlite';
  layouts: UsageBenchLayout[];
  /** Events of the whole history. */
  events: number;
  /**
   * How many of them (the most recent) go through the recorder, which is what is timed;
   * the older rest is loaded first with large direct `store.recordUsage` batches. Default: all.
   */
  recorderEvents: number;
  /** Keys of account 0 in the `single` layout. */
  bigAccountKeys: number;
  /** Keys of every other account, and of account 0 in the `spread` layout. */
  otherAccountKeys: number;
  days: number;
  reportRuns: number;
  /** Leaves the database in place (its URL is logged) for looking at query plans afterwards. */
  keepDatabase: boolean;
  /** Progress lines; default stderr. */
  log: (line: string) => void;
}

export const DEFAULT_USAGE_BENCH_OPTIONS: UsageBenchOptions = {
  dialect: 'postgres',
  layouts: ['spread', 'single'],
  events: 1_000_000,
  recorderEvents: Number.POSITIVE_INFINITY,
  bigAccountKeys: 1_000,
  otherAccountKeys: 100,
  days: 90,
  reportRuns: 20,
  keepDatabase: false,
  log: (line) => process.stderr.write(`${line}\n`),
};

const RECORDER_TARGET_EVENTS_PER_SECOND = 5_000;
const REPORT_TARGET_MS = 50;
const REPORT_RANGE_DAYS = 92;
const PRELOAD_BATCH = 5_000;
/** Arrivals are paced so the buffer holds at most this many: sustained load, not one huge backlog. */
const MAX_BACKLOG = 50_000;
const DAY_MS = 86_400_000;

export async function runUsageBench(overrides: Partial<UsageBenchOptions> = {}): Promise<BenchRow[]> {
  const options = { ...DEFAULT_USAGE_BENCH_OPTIONS, ...overrides };
  const rows: BenchRow[] = [];
  for (const layout of options.layouts) rows.push(...(await runLayout(options, layout)));
  return rows;
}

async function runLayout(options: UsageBenchOptions, layoutName: UsageBenchLayout): Promise<BenchRow[]> {
  const log = options.log;
  const layout = USAGE_BENCH_LAYOUTS[layoutName];
  const label = `[${layout.label.replace('{big}', options.bigAccountKeys.toLocaleString('en-US'))}]`;
  const spread = layoutName === 'spread';
  const database = await createBenchDatabase(options.dialect);
  log(`usage bench ${label}: ${options.dialect} database ${database.url.replace(/^.*\//, '')}`);
  let store: Store | null = null;
  try {
    await migrate(database.url);
    store = await createStore(database.url);

    // The history ends now: the report's default "today" covers its last day.
    const now = Date.now();
    const endDay = parseDay(shanghaiDay(now)) ?? 0;
    const firstInstant = Date.parse(`${formatDay(endDay - (options.days - 1))}T00:00:00+08:00`);
    const population = await createPopulation(
      store,
      {
        accounts: layout.accounts,
        bigAccountKeys: spread ? options.otherAccountKeys : options.bigAccountKeys,
        otherAccountKeys: options.otherAccountKeys,
      },
      new Date(firstInstant - DAY_MS),
    );
    const history: TrafficOptions = {
      events: options.events,
      firstInstant,
      days: options.days,
      bigAccountShare: layout.bigAccountShare,
      seed: 20_260_301,
    };

    const recorded = Math.min(options.events, options.recorderEvents);
    const preloaded = options.events - recorded;
    if (preloaded > 0) await preload(store, traffic(population, { ...history, to: preloaded }), preloaded, log);
    const recorder = await timeRecorder(store, traffic(population, { ...history, from: preloaded }), recorded, log);

    const stored = await store.countUsageEvents();
    const rollupRequests = await totalRollupRequests(
      store,
      population.accounts.map((account) => account.id),
      endDay,
    );
    // The tables as autovacuum keeps them (it has not come round yet after the bulk load): the
    // visibility map set, so that the report's read can be an index-only scan (migration 0010).
    if (database.kind === 'postgres') await benchQuery(database.url, 'VACUUM ANALYZE');

    const report = await timeReport(store, population.bigAccountId, now, endDay, options.reportRuns, log);
    const reportVerdict = (ms: number): BenchRow['verdict'] => (ms < REPORT_TARGET_MS ? 'PASS' : 'FAIL');
    const reportTarget = `< ${REPORT_TARGET_MS}`;
    const rows: BenchRow[] = [
      {
        metric: `recorder events/s (${recorded.toLocaleString('en-US')} events${preloaded > 0 ? `, after ${preloaded.toLocaleString('en-US')} preloaded` : ''})`,
        value: Math.round(recorder.eventsPerSecond).toLocaleString('en-US'),
        target: `>= ${RECORDER_TARGET_EVENTS_PER_SECOND.toLocaleString('en-US')}`,
        verdict: recorder.eventsPerSecond >= RECORDER_TARGET_EVENTS_PER_SECOND && recorder.lost === 0 ? 'PASS' : 'FAIL',
      },
      {
        metric: 'events stored = events sent, rollup requests = events sent',
        value: `${stored.toLocaleString('en-US')} / ${rollupRequests.toLocaleString('en-US')}`,
        target: options.events.toLocaleString('en-US'),
        verdict: stored === options.events && rollupRequests === options.events ? 'PASS' : 'FAIL',
      },
      {
        metric: `report ${REPORT_RANGE_DAYS} days, median ms (${report.keys} keys, ${report.rows.toLocaleString('en-US')} day rows)`,
        value: report.medianMs.toFixed(1),
        target: reportTarget,
        verdict: reportVerdict(report.medianMs),
      },
      {
        metric: `report ${REPORT_RANGE_DAYS} days, p95 ms (${options.reportRuns} runs)`,
        value: report.p95Ms.toFixed(1),
        target: reportTarget,
        verdict: reportVerdict(report.p95Ms),
      },
      {
        metric: '  of which store.keyDayUsage (the rollup read), median ms',
        value: report.queryMedianMs.toFixed(1),
        target: '',
        verdict: 'info',
      },
      {
        metric: '  JSON of the report (what the route serialises), median ms / size',
        value: `${report.serializeMedianMs.toFixed(1)} / ${(report.jsonBytes / 1_048_576).toFixed(1)} MiB`,
        target: '',
        verdict: 'info',
      },
    ];
    return rows.map((row) => ({ ...row, metric: `${label} ${row.metric}` }));
  } finally {
    await store?.close();
    if (options.keepDatabase) log(`usage bench: kept ${database.url}`);
    else await database.drop();
  }
}

/** The older history, written directly in large transactions (not timed as recorder throughput). */
async function preload(store: Store, events: Iterable<UsageEvent>, total: number, log: (line: string) => void): Promise<void> {
  const days = new ShanghaiDayCache();
  const started = performance.now();
  let batch: UsageEventRow[] = [];
  let written = 0;
  const pending: Array<Promise<void>> = [];
  const flush = async () => {
    const rows = batch;
    batch = [];
    pending.push(store.recordUsage(rows));
    written += rows.length;
    // Two transactions at a time: the rollup upserts of concurrent batches touch the same rows.
    if (pending.length >= 2) await pending.shift();
  };
  for (const event of events) {
    batch.push(toUsageEventRow(event, days.dayOf(event.receivedAt), newUsageEventId(Date.now())));
    if (batch.length === PRELOAD_BATCH) {
      await flush();
      if (written % 100_000 === 0) log(`  preloaded ${written.toLocaleString('en-US')} / ${total.toLocaleString('en-US')}`);
    }
  }
  if (batch.length > 0) await flush();
  await Promise.all(pending);
  log(`  preload: ${total.toLocaleString('en-US')} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Sustained recorder throughput: from the first record() until drain() has written the last event. */
async function timeRecorder(
  store: Store,
  events: Iterable<UsageEvent>,
  total: number,
  log: (line: string) => void,
): Promise<{ eventsPerSecond: number; lost: number }> {
  const defaults = UsageSectionSchema.parse({});
  const recorder = new UsageRecorder(store, {
    flushIntervalMs: defaults.flushIntervalMs,
    batchSize: defaults.flushBatchSize,
    maxBufferedEvents: defaults.maxBufferedEvents,
    logger: {
      warn: (details, message) => log(`  recorder: ${message} ${JSON.stringify(details)}`),
      error: (details, message) => log(`  recorder: ${message} ${JSON.stringify(details)}`),
      info: () => undefined,
    },
  });
  recorder.start();
  const started = performance.now();
  let lastProgress = started;
  let sent = 0;
  for (const event of events) {
    recorder.record(event);
    sent += 1;
    if (sent % 1_000 === 0) {
      // A server interleaves requests with the recorder's writes; so does this loop.
      await yieldToEventLoop();
      while (recorder.stats().buffered > MAX_BACKLOG) await sleep(2);
      if (performance.now() - lastProgress > 10_000) {
        lastProgress = performance.now();
        const written = recorder.stats().written;
        log(
          `  recorder: ${written.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} written, ${Math.round(written / ((lastProgress - started) / 1000))} events/s`,
        );
      }
    }
  }
  const drained = await recorder.drain(600_000);
  const seconds = (performance.now() - started) / 1000;
  const stats = recorder.stats();
  log(
    `  recorder: ${stats.written.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s (lost ${drained.lost}, dropped ${stats.dropped})`,
  );
  return { eventsPerSecond: stats.written / seconds, lost: drained.lost + stats.dropped };
}

async function totalRollupRequests(store: Store, accountIds: string[], endDay: number): Promise<number> {
  let total = 0;
  for (const accountId of accountIds) {
    for (const row of await store.dailyUsage(accountId, formatDay(endDay - 400), formatDay(endDay))) total += row.requests;
  }
  return total;
}

interface ReportTiming {
  medianMs: number;
  p95Ms: number;
  queryMedianMs: number;
  serializeMedianMs: number;
  jsonBytes: number;
  keys: number;
  rows: number;
}

async function timeReport(
  store: Store,
  accountId: string,
  now: number,
  endDay: number,
  runs: number,
  log: (line: string) => void,
): Promise<ReportTiming> {
  const reporter = createUsageReporter({ store, now: () => now });
  const query = { start: formatDay(endDay - (REPORT_RANGE_DAYS - 1)), end: formatDay(endDay) };
  const warmUp = 3;
  const reportMs: number[] = [];
  const queryMs: number[] = [];
  const serializeMs: number[] = [];
  let keys = 0;
  let rows = 0;
  let jsonBytes = 0;
  for (let run = 0; run < warmUp + runs; run += 1) {
    const started = performance.now();
    const body = await reporter(accountId, query);
    const elapsed = performance.now() - started;
    const serializeStarted = performance.now();
    const json = JSON.stringify(body);
    const serializeElapsed = performance.now() - serializeStarted;
    const queryStarted = performance.now();
    let dayRows = 0;
    await store.keyDayUsage(accountId, query.start, query.end, () => {
      dayRows += 1;
    });
    const queryElapsed = performance.now() - queryStarted;
    if (run < warmUp) continue;
    reportMs.push(elapsed);
    serializeMs.push(serializeElapsed);
    queryMs.push(queryElapsed);
    keys = body.keys.length;
    rows = dayRows;
    jsonBytes = json.length;
  }
  log(
    `  report ${query.start} .. ${query.end}: ${keys} keys, ${rows} day rows, runs (ms): ${reportMs.map((ms) => ms.toFixed(0)).join(' ')}`,
  );
  return {
    medianMs: percentile(reportMs, 0.5),
    p95Ms: percentile(reportMs, 0.95),
    queryMedianMs: percentile(queryMs, 0.5),
    serializeMedianMs: percentile(serializeMs, 0.5),
    jsonBytes,
    keys,
    rows,
  };
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      events: { type: 'string' },
      'recorder-events': { type: 'string' },
      'big-account-keys': { type: 'string' },
      layout: { type: 'string' },
      runs: { type: 'string' },
      sqlite: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
  });
  const number = (text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    const value = Number(text.replace(/_/g, ''));
    if (!Number.isInteger(value) || value < 1) throw new Error(`expected a positive integer, got ${text}`);
    return value;
  };
  const layout = values.layout ?? 'both';
  if (layout !== 'both' && layout !== 'spread' && layout !== 'single')
    throw new Error(`--layout: expected spread, single or both, got ${layout}`);
  const rows = await runUsageBench({
    dialect: values.sqlite ? 'sqlite' : 'postgres',
    layouts: layout === 'both' ? DEFAULT_USAGE_BENCH_OPTIONS.layouts : [layout],
    events: number(values.events, DEFAULT_USAGE_BENCH_OPTIONS.events),
    recorderEvents: number(values['recorder-events'], DEFAULT_USAGE_BENCH_OPTIONS.recorderEvents),
    bigAccountKeys: number(values['big-account-keys'], DEFAULT_USAGE_BENCH_OPTIONS.bigAccountKeys),
    reportRuns: number(values.runs, DEFAULT_USAGE_BENCH_OPTIONS.reportRuns),
    keepDatabase: values.keep === true,
  });
  process.stdout.write(`${formatTable(rows)}\n`);
  return rows.some((row) => row.verdict === 'FAIL') ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`usage bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 2;
    },
  );
}
