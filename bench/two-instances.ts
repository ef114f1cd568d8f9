import type { BenchRow } from './bench-table';
import type { GatewayUnderTest } from './gateway-process';
import { errorCount, runLoad, type LoadResult } from './load';
import { cpuMicros, rssMiB } from './processes';
import { addRound, cpuPerRequest, emptyStats, formatScenario, requestsPerSecond } from './report';
import type { Scenario } from './scenarios';
import type { UsageCount } from './verdicts';

/**
 * `npm run bench -- --two-instances`: two gateways on the same Postgres and Redis, the chat
 * load split between them and sent to both at once (half the connections each), round by
 * round as the other scenarios. Each instance's throughput and CPU per request, and the usage
 * events stored during the scenario against the requests both answered (docs/performance.md).
 */
export interface TwoInstanceRun {
  table: string;
  rows: BenchRow[];
}

interface TwoInstanceOptions {
  duration: number;
  rounds: number;
  warmup: number;
}

const INSTANCES = ['instance 1 of 2', 'instance 2 of 2'];

export async function runTwoInstances(
  instances: [GatewayUnderTest, GatewayUnderTest],
  scenario: Scenario,
  bodyFile: string,
  options: TwoInstanceOptions,
  usage: UsageCount,
  settledUsage: () => Promise<number>,
): Promise<TwoInstanceRun> {
  const connections = Math.max(1, Math.floor(scenario.connections / instances.length));
  const counted = { sent: 0, answered: 0 };
  const before = await settledUsage();
  const both = async (seconds: number): Promise<LoadResult[]> => {
    const results = await Promise.all(
      instances.map((instance) =>
        runLoad({
          url: `http://127.0.0.1:${instance.process.port}${scenario.path}`,
          bodyFile,
          authorization: instance.authorization,
          connections,
          durationSeconds: seconds,
        }),
      ),
    );
    for (const result of results) {
      counted.sent += result.sent;
      counted.answered += result.requests;
    }
    return results;
  };
  // The second instance has served nothing yet: first warmed up alone, with all the
  // connections, for as long as the first one was in the scenarios before (its compiler's
  // optimizations follow the calls made), then both together.
  const [, newcomer] = instances;
  const alone = await runLoad({
    url: `http://127.0.0.1:${newcomer.process.port}${scenario.path}`,
    bodyFile,
    authorization: newcomer.authorization,
    connections: scenario.connections,
    durationSeconds: options.warmup + options.duration,
  });
  counted.sent += alone.sent;
  counted.answered += alone.requests;
  await both(options.warmup);
  const stats = INSTANCES.map((name) => emptyStats(name));
  const seconds = Math.max(1, Math.round(options.duration / options.rounds));
  for (let round = 0; round < options.rounds; round++) {
    const cpuBefore = instances.map((instance) => cpuMicros(instance.process.pid));
    const results = await both(seconds);
    results.forEach((result, index) => {
      const entry = stats[index];
      const instance = instances[index];
      if (entry && instance)
        addRound(entry, result, cpuMicros(instance.process.pid) - (cpuBefore[index] ?? 0), errorCount(result), options.rounds);
    });
  }
  stats.forEach((entry, index) => {
    const instance = instances[index];
    if (instance) entry.rssMiB = rssMiB(instance.process.pid);
  });
  const stored = (await settledUsage()) - before;
  // What wrk cut off when it stopped was sent to the fleet: the run's usage check counts it too.
  usage.loadSent += counted.sent;
  usage.loadAnswered += counted.answered;
  const title = `${scenario.title}, split over two gateways on the same Postgres + Redis (${connections} connections each)`;
  const together = stats.reduce((sum, entry) => sum + requestsPerSecond(entry), 0);
  const rows: BenchRow[] = stats.map((entry) => ({
    metric: `two instances, ${scenario.id}: ${entry.target}`,
    value: `${Math.round(requestsPerSecond(entry)).toLocaleString('en-US')} req/s, ${Math.round(cpuPerRequest(entry))} µs/req CPU, ${entry.errors} errors`,
    target: '',
    verdict: 'info',
  }));
  rows.push({
    metric: `two instances, ${scenario.id}: together`,
    value: `${Math.round(together).toLocaleString('en-US')} req/s`,
    target: '',
    verdict: 'info',
  });
  const inRange = counted.answered <= stored && stored <= counted.sent;
  rows.push({
    metric: `two instances, ${scenario.id}: usage events stored (wrk cuts requests off when it stops)`,
    value: `${stored.toLocaleString('en-US')}: ${counted.answered.toLocaleString('en-US')} answered, ${(counted.sent - counted.answered).toLocaleString('en-US')} cut off`,
    target: 'answered <= events <= sent',
    verdict: inRange && stats.every((entry) => entry.errors === 0) ? 'PASS' : 'FAIL',
  });
  return { table: formatScenario(title, stats), rows };
}
