import type { LoadResult } from './load';
import type { PairedCpu } from './paired-rounds';

/** One target's aggregate over the measured rounds of a scenario. */
export interface TargetStats {
  target: string;
  requests: number;
  seconds: number;
  /** Means over rounds, in ms. */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  cpuMicros: number;
  /** CPU µs per request of each round, in the order the rounds ran. */
  roundCpu: number[];
  /** A variant that changes one feature of the gateway: its paired rounds beside the gateway (bench/paired-rounds.ts). */
  pairedCpu?: PairedCpu;
  rssMiB: number;
  errors: number;
  /** The gateway's own time (`x-gateway-overhead-ms`), means over rounds, in ms; one connection only. */
  overheadP50Ms?: number;
  overheadP99Ms?: number;
}

export function emptyStats(target: string): TargetStats {
  return { target, requests: 0, seconds: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, cpuMicros: 0, roundCpu: [], rssMiB: 0, errors: 0 };
}

/** Adds one round; percentiles are averaged over rounds (each round weighs the same). */
export function addRound(stats: TargetStats, result: LoadResult, cpuMicros: number, errors: number, rounds: number): void {
  stats.requests += result.requests;
  stats.seconds += result.durationUs / 1e6;
  stats.p50Ms += result.latencyUs.p50 / 1000 / rounds;
  stats.p90Ms += result.latencyUs.p90 / 1000 / rounds;
  stats.p99Ms += result.latencyUs.p99 / 1000 / rounds;
  stats.cpuMicros += cpuMicros;
  stats.roundCpu.push(cpuMicros / Math.max(result.requests, 1));
  stats.errors += errors;
  if (result.overheadUs) {
    stats.overheadP50Ms = (stats.overheadP50Ms ?? 0) + result.overheadUs.p50 / 1000 / rounds;
    stats.overheadP99Ms = (stats.overheadP99Ms ?? 0) + result.overheadUs.p99 / 1000 / rounds;
  }
}

export const requestsPerSecond = (stats: TargetStats): number => stats.requests / Math.max(stats.seconds, 1e-9);
export const cpuPerRequest = (stats: TargetStats): number => stats.cpuMicros / Math.max(stats.requests, 1);

/** The per-scenario table: one line per target, latency added over the mock's. */
export function formatScenario(title: string, stats: TargetStats[]): string {
  const mock = stats.find((entry) => entry.target === 'mock');
  const header = ['target', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'added p50', 'added p99', 'CPU µs/req', 'RSS MiB', 'errors'];
  const lines = stats.map((entry) => [
    entry.target,
    Math.round(requestsPerSecond(entry)).toLocaleString('en-US'),
    entry.p50Ms.toFixed(2),
    entry.p90Ms.toFixed(2),
    entry.p99Ms.toFixed(2),
    mock && entry !== mock ? signed(entry.p50Ms - mock.p50Ms) : '',
    mock && entry !== mock ? signed(entry.p99Ms - mock.p99Ms) : '',
    Math.round(cpuPerRequest(entry)).toLocaleString('en-US'),
    entry.rssMiB.toFixed(0),
    String(entry.errors),
  ]);
  return `${title}\n${alignedTable([header, ...lines])}`;
}

const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;

export function alignedTable(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  const format = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join(' | ')
      .trimEnd();
  const [first, ...rest] = rows;
  return [format(first ?? []), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rest.map(format)].join('\n');
}

/** Nearest-rank percentile of a sample. */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;
}
