import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The real Claude Code CLI (`claude -p`, pinned in test/agents/claude-code/package.json, which
 * .ci/run installs), run against a gateway with a home of its own.
 */
export const CLAUDE = path.join(__dirname, 'claude-code', 'node_modules', '.bin', 'claude');

export const claudeInstalled = existsSync(CLAUDE);

export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `claude -p "say hi" --model <model>` with the gateway as its Anthropic API, killed after 90 s. */
export function runClaude(options: { gatewayUrl: string; apiKey: string; model: string; home: string }): Promise<ClaudeRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: options.home,
    ANTHROPIC_BASE_URL: options.gatewayUrl,
    ANTHROPIC_AUTH_TOKEN: options.apiKey,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE, ['-p', 'say hi', '--model', options.model], { env, cwd: options.home, stdio: ['ignore', 'pipe', 'pipe'] });
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
