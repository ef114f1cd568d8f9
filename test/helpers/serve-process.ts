import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `model-gateway serve` (or any command) as a real child process, for tests of what only a
 * process has: signals, cluster workers, start-up against a database that is down.
 */
export const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = path.join(REPOSITORY, 'bin/model-gateway.js');

export interface ServeProcess {
  child: ChildProcess;
  /** The address it listens on; throws until its `gateway listening` line (waitForStatus waits for it). */
  readonly baseUrl: string;
  readonly port: number;
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills it (SIGKILL) if it still runs; for afterAll. */
  kill(): void;
}

/** A clean environment for a child gateway: no Redis or admin token unless given. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info' };
  delete base.REDIS_URL;
  delete base.GATEWAY_ADMIN_TOKEN;
  delete base.GATEWAY_METRICS_TOKEN;
  return { ...base, ...env };
}

export interface ChildOptions {
  /** The working directory (default: the repository): where default settings put `data/`. */
  cwd?: string;
}

/**
 * Each process gets its own usage journal (USAGE_JOURNAL_DIR) unless the test shares one (a
 * restart on the same disk) or gives `USAGE_JOURNAL_DIR: ''`: default settings, slots under `cwd`.
 *
 * Without a PORT it listens on port 0 and its port is read from its `gateway listening` line: a
 * port picked free beforehand could be taken by another test's server before this one binds it,
 * and that server would then answer this test's requests.
 */
export async function spawnServe(env: Record<string, string>, args: string[] = [], options: ChildOptions = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    cwd: options.cwd ?? REPOSITORY,
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', USAGE_JOURNAL_DIR: mkdtempSync(path.join(tmpdir(), 'usage-journal-')), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (data: Buffer) => (output += data.toString()));
  child.stderr?.on('data', (data: Buffer) => (output += data.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const port = () => {
    const listening = logLines(output).find((line) => line.msg === 'gateway listening' && typeof line.port === 'number');
    if (!listening) throw new Error(`the server is not listening yet: ${output}`);
    return listening.port as number;
  };
  return {
    child,
    get port() {
      return port();
    },
    get baseUrl() {
      return `http://127.0.0.1:${port()}`;
    },
    output: () => output,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Polls `path` until it answers `status`; fails early with the output when the process exits. */
export async function waitForStatus(server: ServeProcess, path: string, status = 200, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`the server exited early (${server.child.exitCode}): ${server.output()}`);
    try {
      if ((await fetch(`${server.baseUrl}${path}`)).status === status) return;
    } catch {
      // Not listening yet (`baseUrl` throws until the process says where it listens).
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${path} did not answer ${status} in time: ${server.output()}`);
}

/** Runs one CLI command to completion; its JSON output, or a thrown error with its stderr. */
export function runCli(env: Record<string, string>, args: string[], options: ChildOptions = {}): unknown {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? REPOSITORY,
    env: childEnv(env),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`model-gateway ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout) as unknown;
}

/** The JSON log lines of a child's output. */
export function logLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return {};
      }
    });
}
