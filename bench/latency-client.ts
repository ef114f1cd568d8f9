import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentile } from './report';

/**
 * One connection, one request at a time, for `--duration` seconds, timed with the monotonic
 * clock; prints one JSON line. Its own process, so the client's CPU is nobody else's.
 *
 * Why not wrk here: wrk times requests with gettimeofday(), and on a VM whose wall clock is
 * stepped by its time sync (this one steps by up to 4 ms several times a second) those steps
 * land in the latencies. At one connection the figures are tenths of a millisecond, so they
 * are taken here; wrk's own figures at 64 connections (tens of ms) are only blurred by them.
 */
export interface SequentialResult {
  requests: number;
  errors: number;
  seconds: number;
  /** Microseconds. */
  latencyUs: { p50: number; p90: number; p99: number; max: number };
  /** The gateway's own time per request, from its `x-gateway-overhead-ms` header (absent elsewhere); microseconds. */
  overheadUs?: { p50: number; p99: number };
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { url: { type: 'string' }, 'body-file': { type: 'string' }, authorization: { type: 'string' }, duration: { type: 'string' } },
  });
  const url = new URL(values.url ?? '');
  const body = readFileSync(values['body-file'] ?? '');
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(body.length) };
  if (values.authorization) headers.authorization = values.authorization;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const overheads: number[] = [];
  const once = () =>
    new Promise<boolean>((resolve) => {
      const outbound = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent }, (response) => {
        const overhead = response.headers['x-gateway-overhead-ms'];
        if (typeof overhead === 'string') overheads.push(Number(overhead) * 1000);
        response.resume();
        response.on('end', () => resolve(response.statusCode === 200));
        response.on('error', () => resolve(false));
      });
      outbound.on('error', () => resolve(false));
      outbound.end(body);
    });

  const latencies: number[] = [];
  let errors = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(Number(values.duration ?? 5) * 1e9));
  for (let now = started; now < deadline;) {
    const ok = await once();
    const ended = process.hrtime.bigint();
    latencies.push(Number(ended - now) / 1000);
    if (!ok) errors++;
    now = ended;
  }
  agent.destroy();
  const at = (fraction: number) => Math.round(percentile(latencies, fraction));
  const overheadAt = (fraction: number) => Math.round(percentile(overheads, fraction));
  const result: SequentialResult = {
    requests: latencies.length,
    errors,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    latencyUs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) },
    ...(overheads.length > 0 ? { overheadUs: { p50: overheadAt(0.5), p99: overheadAt(0.99) } } : {}),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
