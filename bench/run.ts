import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatTable, type BenchRow } from './bench-table';
import { startGateway, type GatewaySetup, type GatewayUnderTest } from './gateway-process';
import { errorCount, runLoad, runSequential, wrkMissing } from './load';
import { parseOptions, type Options } from './options';
import { cpuMicros, rssMiB, startScript, type BenchProcess } from './processes';
import { addRound, alignedTable, emptyStats, formatScenario, percentile, type TargetStats } from './report';
import { HOLD_STREAM_BODY, scenarios, SLOW_STREAM_BODY, STREAM_BODY, type Scenario } from './scenarios';
import { pairedRounds, type PairedTarget } from './paired-rounds';
import { openStreams, streamSpread, timeToFirstByte, type StreamTarget } from './stream-probes';
import { runTwoInstances } from './two-instances';
import {
  DEPLOYMENTS_TARGET,
  durabilityTarget,
  OTHER_TARGET,
  PAIRED_TARGETS,
  REQUEST_LOG_OFF_TARGET,
  RSS_SETTLE_MS,
  SLOW_DELAY_MS,
  SQLITE_TARGET,
  TRACES_TARGET,
  verdicts,
  type Probes,
  type UsageCount,
} from './verdicts';

/**
 * `npm run bench`: the mock upstream, the bare pass-through proxy (the floor) and the gateway,
 * each its own process, driven in turn by wrk, scenario by scenario, targets alternating
 * round by round so that they share the machine's conditions. Prints a table per scenario
 * and the targets' verdicts; exits 1 when one fails. Options: bench/options.ts.
 */

interface Targets {
  mock: BenchProcess;
  proxy: BenchProcess;
  gateway: GatewayUnderTest;
  /**
   * Gateways measured beside `gateway` in the same rounds, in the order the tables list them:
   * `--durability`, `--postgres`'s SQLite one, `--traces`'s two, `--deployments`, `--compare`.
   */
  variants: Variant[];
  /** `--json-proxy`: the gateway's JSON work without its features (no verdicts). */
  jsonProxy: BenchProcess | null;
}

/** A gateway measured beside this one: its name in the tables and verdicts, and the process. */
interface Variant {
  name: string;
  gateway: GatewayUnderTest;
}

/** The variants the options ask for: each one's target name and how its setup differs from the gateway's. */
function variantSpecs(options: Options): { name: string; differs: Partial<GatewaySetup>; folder: string }[] {
  const specs: { name: string; differs: Partial<GatewaySetup>; folder: string; when: unknown }[] = [
    {
      when: options.durability,
      name: durabilityTarget(options.durability),
      differs: { durability: options.durability ?? undefined },
      folder: 'durability',
    },
    { when: options.postgres, name: SQLITE_TARGET, differs: { postgres: false }, folder: 'sqlite' },
    { when: options.traces, name: TRACES_TARGET, differs: { traces: true }, folder: 'traces' },
    { when: options.traces, name: REQUEST_LOG_OFF_TARGET, differs: { requestLogOff: true }, folder: 'no-request-log' },
    { when: options.deployments, name: DEPLOYMENTS_TARGET, differs: { threeDeployments: true }, folder: 'deployments' },
    {
      when: options.compare,
      name: OTHER_TARGET,
      differs: { nodeFlags: options.nodeFlags, bin: options.compare ? path.join(options.compare, 'bin', 'model-gateway.js') : undefined },
      folder: 'other',
    },
  ];
  return specs.filter((spec) => spec.when);
}

/** Streams of the open-streams probe last ~3.5 s: long enough for all of them to be opened first. */
const HOLD_DELAY_MS = 150;
const FIRST_BYTE_SAMPLES = 300;

async function main(argv: string[]): Promise<number> {
  const options = parseOptions(argv);
  const missing = wrkMissing();
  if (missing) {
    process.stderr.write(`${missing}\n`);
    return 2;
  }
  const work = mkdtempSync(path.join(tmpdir(), 'gw-bench-'));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // The gateway runs as it does in production: from the bundle, rebuilt here from the sources.
  execFileSync('npm', ['run', '-s', 'build:server'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  log(`bench: ${cpus()[0]?.model ?? 'cpu'} x ${availableParallelism()}, node ${process.version}, work directory ${work}`);

  const script = (name: string) => fileURLToPath(new URL(name, import.meta.url));
  const mock = await startScript('mock', script('./mock-upstream.ts'), [
    '--chunks',
    String(options.chunks),
    '--dimensions',
    String(options.dimensions),
  ]);
  const proxy = await startScript('bare proxy', script('./bare-proxy.ts'), ['--upstream', `http://127.0.0.1:${mock.port}`]);
  const jsonProxy = options.jsonProxy
    ? await startScript('json proxy', script('./json-proxy.ts'), ['--upstream', `http://127.0.0.1:${mock.port}`])
    : null;
  let gateway: GatewayUnderTest | null = null;
  let second: GatewayUnderTest | null = null;
  const variants: Variant[] = [];
  try {
    const setup = {
      mockPort: mock.port,
      slowDelayMs: SLOW_DELAY_MS,
      holdDelayMs: HOLD_DELAY_MS,
      dimensions: options.dimensions,
      postgres: options.postgres,
      redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
      logLevel: options.logLevel,
      nodeFlags: [...options.nodeFlags, ...(options.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] : [])],
      bedrock: !options.only || options.only.includes('bedrock-stream'),
    };
    gateway = await startGateway({ ...setup, workDirectory: work });
    for (const spec of variantSpecs(options)) {
      const variant = await startGateway({ ...setup, workDirectory: mkdtempSync(path.join(work, `${spec.folder}-`)), ...spec.differs });
      variants.push({ name: spec.name, gateway: variant });
      log(`bench: ${spec.name}${spec.name === OTHER_TARGET ? ` (${options.compare})` : ''} :${variant.process.port}`);
    }
    if (options.twoInstances) {
      second = await startGateway({ ...setup, workDirectory: mkdtempSync(path.join(work, 'second-')), sameFleetAs: gateway });
      log(`bench: a second gateway on the same Postgres + Redis :${second.process.port}`);
    }
    log(
      `bench: mock :${mock.port}, bare proxy :${proxy.port}, gateway :${gateway.process.port} (${options.postgres ? 'Postgres + Redis' : 'SQLite'}, LOG_LEVEL=${options.logLevel}, log ${gateway.logFile})`,
    );
    const targets: Targets = { mock, proxy, gateway, variants, jsonProxy };
    const usage: UsageCount = { loadSent: 0, loadAnswered: 0, loadRecorded: 0, exactSent: 0 };

    const selected = scenarios(options.chunks, options.dimensions).filter(
      (scenario) => !options.only || options.only.includes(scenario.id),
    );
    const results: Record<string, TargetStats[]> = {};
    const tables: string[] = [];
    // wrk's scenarios first: what they cut off when they stop is counted before the exact part.
    for (const scenario of selected.filter((entry) => entry.connections > 1)) {
      log(`bench: ${scenario.title}`);
      results[scenario.id] = await runScenario(scenario, targets, options, work, usage);
      tables.push(formatScenario(scenario.title, results[scenario.id] ?? []));
    }
    const fleetRows: BenchRow[] = [];
    const chat = selected.find((entry) => entry.id === 'chat');
    if (second && chat) {
      log(`bench: ${chat.title}, two instances`);
      const fleet = await runTwoInstances([gateway, second], chat, path.join(work, 'chat.json'), options, usage, () =>
        settledUsage(gateway as GatewayUnderTest),
      );
      tables.push(fleet.table);
      fleetRows.push(...fleet.rows);
    }
    if (second) await second.finish();
    second = null;
    usage.loadRecorded = await settledUsage(gateway);
    for (const scenario of selected.filter((entry) => entry.connections === 1)) {
      log(`bench: ${scenario.title}`);
      results[scenario.id] = await runScenario(scenario, targets, options, work, usage);
      tables.push(formatScenario(scenario.title, results[scenario.id] ?? []));
    }

    log('bench: stream probes (first byte, incremental delivery, open streams)');
    const probes = await streamProbes(targets, options, usage);
    // Once the load stops the gateway is quiet: it gives the heap's garbage back
    // (server.idle_gc, after 30 s without requests); RSS is read after that, as an idle gateway has it.
    const rssAtEnd = rssMiB(gateway.process.pid);
    await sleep(RSS_SETTLE_MS);
    const rss = rssMiB(gateway.process.pid);
    log(`bench: gateway RSS ${rssAtEnd.toFixed(0)} MiB as the load stopped, ${rss.toFixed(0)} MiB ${RSS_SETTLE_MS / 1000} s later`);
    log('bench: stopping the gateway (drains usage) and counting usage events');
    const finished = await gateway.finish();
    gateway = null;

    const rows = [...verdicts(results, probes, { settled: rss, atEnd: rssAtEnd }, finished, usage, options), ...fleetRows];
    if (options.usage) {
      log('bench: usage benchmark');
      const { runUsageBench } = await import('./usage-bench');
      rows.push(...(await runUsageBench({ dialect: options.postgres ? 'postgres' : 'sqlite' })));
    }
    const machine = `${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}, ${options.postgres ? 'Postgres + Redis' : 'SQLite'}, LOG_LEVEL=${options.logLevel}, ${options.duration}s x ${options.rounds === 1 ? '1 round' : `${options.rounds} rounds`} per target`;
    process.stdout.write(`\n${machine}\n\n${tables.join('\n\n')}\n\n${formatProbes(probes)}\n\n${formatTable(rows)}\n`);
    if (options.json)
      writeFileSync(
        options.json,
        `${JSON.stringify({ machine, results, probes, rss: { settled: rss, atEnd: rssAtEnd }, finished, usage, rows }, null, 2)}\n`,
      );
    return rows.some((row) => row.verdict === 'FAIL') ? 1 : 0;
  } finally {
    for (const variant of variants) await variant.gateway.finish().catch(() => undefined);
    if (second) await second.finish().catch(() => undefined);
    if (gateway) await gateway.finish().catch(() => undefined);
    await Promise.all([mock.stop(), proxy.stop(), jsonProxy?.stop()]);
    rmSync(work, { recursive: true, force: true });
  }
}

/** Usage events stored, once the recorder has flushed what it buffered (flush interval: 1 s). */
async function settledUsage(gateway: GatewayUnderTest): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  return gateway.countUsage();
}

async function runScenario(
  scenario: Scenario,
  targets: Targets,
  options: Options,
  work: string,
  usage: UsageCount,
): Promise<TargetStats[]> {
  const bodyFile = path.join(work, `${scenario.id}.json`);
  writeFileSync(bodyFile, scenario.body);
  const baselineFile = path.join(work, `${scenario.id}.baseline.json`);
  if (scenario.baseline) writeFileSync(baselineFile, scenario.baseline.body);
  const list = [
    { name: 'mock', process: targets.mock, authorization: undefined },
    { name: 'bare proxy', process: targets.proxy, authorization: undefined },
    // It answers JSON only: streams are not its business.
    ...(targets.jsonProxy && scenario.id !== 'stream' && scenario.id !== 'responses-stream'
      ? [{ name: 'json proxy', process: targets.jsonProxy, authorization: undefined }]
      : []),
    { name: 'gateway', process: targets.gateway.process, authorization: targets.gateway.authorization },
    ...targets.variants.map((variant) => ({
      name: variant.name,
      process: variant.gateway.process,
      authorization: variant.gateway.authorization,
    })),
  ];
  const sequential = scenario.connections === 1;
  const load = async (target: (typeof list)[number], durationSeconds: number, connections = scenario.connections) => {
    // The mock and the proxies are sent what the gateway sends upstream (Scenario.baseline).
    const baseline = target.authorization === undefined ? scenario.baseline : undefined;
    const result = await (sequential ? runSequential : runLoad)({
      url: `http://127.0.0.1:${target.process.port}${baseline?.path ?? scenario.path}`,
      bodyFile: baseline ? baselineFile : bodyFile,
      authorization: target.authorization,
      connections,
      durationSeconds,
    });
    if (target.name !== 'gateway') return result;
    if (sequential) usage.exactSent += result.sent;
    else {
      usage.loadSent += result.sent;
      usage.loadAnswered += result.requests;
    }
    return result;
  };
  for (const target of list) await load(target, options.warmup);
  const stats = list.map((target) => emptyStats(target.name));
  const seconds = Math.max(1, Math.round(options.duration / options.rounds));
  for (let round = 0; round < options.rounds; round++) {
    // Each round starts one target later: no target always follows the same one (docs/performance.md, "Reading the table").
    for (const index of Array.from(list, (_, at) => (at + round) % list.length)) {
      const target = list[index];
      if (!target) continue;
      const before = cpuMicros(target.process.pid);
      const result = await load(target, seconds);
      const entry = stats[index];
      if (entry) addRound(entry, result, cpuMicros(target.process.pid) - before, errorCount(result), options.rounds);
    }
  }
  // docs/performance.md, "Reading the table": a feature's cost is judged on paired rounds (their errors count too).
  const gatewayIndex = list.findIndex((target) => target.name === 'gateway');
  const paired = (index: number): PairedTarget | undefined => {
    const target = list[index];
    const entry = stats[index];
    if (!target || !entry) return undefined;
    return {
      pid: target.process.pid,
      load: async (connections, roundSeconds) => {
        const result = await load(target, roundSeconds, connections);
        entry.errors += errorCount(result);
        return result;
      },
    };
  };
  const gatewayPair = sequential ? undefined : paired(gatewayIndex);
  for (const [index, target] of list.entries()) {
    const variantPair = PAIRED_TARGETS.has(target.name) ? paired(index) : undefined;
    const entry = stats[index];
    if (!gatewayPair || !variantPair || !entry) continue;
    entry.pairedCpu = await pairedRounds(gatewayPair, variantPair, scenario.connections, seconds, options.rounds);
  }
  list.forEach((target, index) => {
    const entry = stats[index];
    if (entry) entry.rssMiB = rssMiB(target.process.pid);
  });
  return stats;
}

async function streamProbes(targets: Targets, options: Options, usage: UsageCount): Promise<Probes> {
  const at = (process: BenchProcess, body: string, authorization?: string): StreamTarget => ({
    url: `http://127.0.0.1:${process.port}/v1/chat/completions`,
    body,
    authorization,
  });
  const list: Array<[string, StreamTarget]> = [
    ['mock', at(targets.mock, STREAM_BODY)],
    ['bare proxy', at(targets.proxy, STREAM_BODY)],
    ['gateway', at(targets.gateway.process, STREAM_BODY, targets.gateway.authorization)],
    ...targets.variants
      .filter((variant) => variant.name === SQLITE_TARGET)
      .map((variant) => [SQLITE_TARGET, at(variant.gateway.process, STREAM_BODY, variant.gateway.authorization)] as [string, StreamTarget]),
  ];
  const samples: Record<string, number[]> = {};
  const failures: Record<string, number> = {};
  // Alternating batches, like the load scenarios.
  for (let batch = 0; batch < 3; batch++) {
    for (const [name, target] of list) {
      const count = FIRST_BYTE_SAMPLES / 3;
      const result = await timeToFirstByte(target, count);
      if (name === 'gateway') usage.exactSent += count;
      (samples[name] ??= []).push(...result.firstByteMs);
      failures[name] = (failures[name] ?? 0) + result.failures;
    }
  }
  const firstByte: Probes['firstByte'] = {};
  for (const [name] of list) {
    const values = samples[name] ?? [];
    firstByte[name] = { p50: percentile(values, 0.5), p99: percentile(values, 0.99), failures: failures[name] ?? 0 };
  }

  const slow = at(targets.gateway.process, SLOW_STREAM_BODY, targets.gateway.authorization);
  const spread = await streamSpread(slow);
  usage.exactSent += 1;

  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMiB(targets.gateway.process.pid));
  }, 100);
  const hold = at(targets.gateway.process, HOLD_STREAM_BODY, targets.gateway.authorization);
  const open = await openStreams(hold, options.openStreams).finally(() => clearInterval(sampler));
  usage.exactSent += options.openStreams;
  return { firstByte, spread, open: { count: options.openStreams, ...open, rssMiB: peakRss } };
}

function formatProbes(probes: Probes): string {
  const header = ['streams', 'first byte p50 ms', 'p99 ms', 'failures'];
  const lines = Object.entries(probes.firstByte).map(([name, entry]) => [
    name,
    entry.p50.toFixed(2),
    entry.p99.toFixed(2),
    String(entry.failures),
  ]);
  return `time to the first event of a stream (1 connection, ${FIRST_BYTE_SAMPLES} streams each)\n${alignedTable([header, ...lines])}`;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  },
);
