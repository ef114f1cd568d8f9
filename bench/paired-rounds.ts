import type { LoadResult } from './load';
import { cpuMicros } from './processes';

/**
 * docs/performance.md, "Reading the table": what a feature costs a request, measured with the
 * gateway and the same gateway with the feature changed under load at the same time, each
 * driven by its own wrk with half the scenario's connections. Both then run through the same
 * spells of the shared machine, which move a sequential round's figures by a quarter or more:
 * the ratio of their CPU per request in one paired round is what the verdict reads.
 */

/** A gateway of a pair: its process, and its load for a round of `seconds` at `connections`. */
export interface PairedTarget {
  pid: number;
  load(connections: number, seconds: number): Promise<LoadResult>;
}

/** CPU µs per request of each paired round, for the gateway and for the variant, in round order. */
export interface PairedCpu {
  gateway: number[];
  variant: number[];
}

export async function pairedRounds(
  gateway: PairedTarget,
  variant: PairedTarget,
  connections: number,
  seconds: number,
  rounds: number,
): Promise<PairedCpu> {
  const each = Math.max(1, Math.floor(connections / 2));
  const cpu: PairedCpu = { gateway: [], variant: [] };
  for (let round = 0; round < rounds; round++) {
    const before = [cpuMicros(gateway.pid), cpuMicros(variant.pid)] as const;
    const [ofGateway, ofVariant] = await Promise.all([gateway.load(each, seconds), variant.load(each, seconds)]);
    cpu.gateway.push((cpuMicros(gateway.pid) - before[0]) / Math.max(ofGateway.requests, 1));
    cpu.variant.push((cpuMicros(variant.pid) - before[1]) / Math.max(ofVariant.requests, 1));
  }
  return cpu;
}
