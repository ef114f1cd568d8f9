import { spawn } from 'node:child_process';

/** What an agent CLI printed, and how it ended (null: killed after its time ran out). */
export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an agent CLI with only `env` for environment, collects what it prints, kills it after 90 s. */
export function runAgentCli(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
