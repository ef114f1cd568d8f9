import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

/** A process under test: its own pid, so its CPU and memory are its own. */
export interface BenchProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  port: number;
  stop(): Promise<number | null>;
}

/** utime + stime of a process (all threads), in µs, from /proc/<pid>/stat. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; the fields after it are space-separated.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

/** Resident set size in MiB, from /proc/<pid>/status. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** USER_HZ: 100 on every Linux build that matters (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/**
 * A bench helper script (mock upstream, bare proxy) run with tsx in its own process; it
 * prints `{"port": N}` as its first line once listening.
 */
export async function startScript(name: string, script: string, args: string[]): Promise<BenchProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return wrap(name, child, port);
}

/** A process whose readiness is an HTTP URL answering 200; output goes to `logFile`. */
export async function startServer(
  name: string,
  command: string[],
  options: { env: NodeJS.ProcessEnv; logFile: string; port: number; readyUrl: string; timeoutMs?: number },
): Promise<BenchProcess> {
  const output = openSync(options.logFile, 'a');
  const [executable, ...args] = command;
  const child = spawn(executable ?? process.execPath, args, { env: options.env, stdio: ['ignore', output, output] });
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exited !== undefined) throw new Error(`${name} exited with ${exited} before it was ready; see ${options.logFile}`);
    if (Date.now() > deadline) throw new Error(`${name} was not ready in time; see ${options.logFile}`);
    const ok = await fetch(options.readyUrl).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    await sleep(100);
  }
  return wrap(name, child, options.port);
}

function wrap(name: string, child: ChildProcess, port: number): BenchProcess {
  const exit = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  return {
    name,
    child,
    pid: child.pid,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exit;
    },
  };
}
