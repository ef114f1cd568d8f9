import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SequentialResult } from './latency-client';

/**
 * The load generator: wrk (C, epoll; Debian's `wrk` package), driven by wrk-report.lua. On a
 * two-core machine the generator shares the CPU with the process under test, so it has to
 * be cheap: wrk needs a fraction of what a Node generator would at the same rate.
 */
export interface LoadResult {
  /** Responses completed. */
  requests: number;
  /** Requests written, those still in flight when wrk stopped included. */
  sent: number;
  durationUs: number;
  bytes: number;
  /** Socket errors and non-2xx responses. */
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyUs: { mean: number; p50: number; p90: number; p99: number; max: number };
  /** One connection, gateway only: its own time per request (`x-gateway-overhead-ms`). */
  overheadUs?: { p50: number; p99: number };
}

export interface LoadOptions {
  url: string;
  bodyFile: string;
  authorization?: string;
  connections: number;
  durationSeconds: number;
  threads?: number;
}

const SCRIPT = fileURLToPath(new URL('./wrk-report.lua', import.meta.url));
const SEQUENTIAL_CLIENT = fileURLToPath(new URL('./latency-client.ts', import.meta.url));

/** Null when wrk is there; otherwise how to get it. */
export function wrkMissing(): string | null {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (!probe.error) return null;
  return [
    'npm run bench needs wrk (the HTTP load generator) on the PATH. Install it with:',
    '  sudo apt-get install -y wrk     # Debian, Ubuntu',
    '  brew install wrk                # macOS',
  ].join('\n');
}

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const args = [
    `-t${options.threads ?? 1}`,
    `-c${options.connections}`,
    `-d${options.durationSeconds}s`,
    '--timeout',
    '10s',
    '-s',
    SCRIPT,
    options.url,
  ];
  const env = { ...process.env, WRK_BODY_FILE: options.bodyFile, WRK_AUTHORIZATION: options.authorization ?? '' };
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { env, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`wrk failed: ${error.message}\n${stderr}`));
      const line = stdout.split('\n').find((entry) => entry.startsWith('WRK_JSON '));
      if (!line) return reject(new Error(`wrk printed no summary:\n${stdout}\n${stderr}`));
      resolve(JSON.parse(line.slice('WRK_JSON '.length)) as LoadResult);
    });
  });
}

/**
 * One connection, one request at a time (latency-client.ts, monotonic clock): the way the
 * one-connection figures are taken. Every request it sends is answered before it stops.
 */
export function runSequential(options: LoadOptions): Promise<LoadResult> {
  const args = [
    '--import',
    'tsx',
    SEQUENTIAL_CLIENT,
    '--url',
    options.url,
    '--body-file',
    options.bodyFile,
    '--duration',
    String(options.durationSeconds),
  ];
  if (options.authorization) args.push('--authorization', options.authorization);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`latency client failed: ${error.message}\n${stderr}`));
      const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as SequentialResult;
      resolve({
        requests: result.requests,
        sent: result.requests,
        durationUs: result.seconds * 1e6,
        bytes: 0,
        errors: { connect: 0, read: 0, write: 0, status: result.errors, timeout: 0 },
        latencyUs: { mean: Number.NaN, ...result.latencyUs },
        ...(result.overheadUs ? { overheadUs: result.overheadUs } : {}),
      });
    });
  });
}

export function errorCount(result: LoadResult): number {
  const { connect, read, write, status, timeout } = result.errors;
  return connect + read + write + status + timeout;
}
