import { existsSync } from 'node:fs';
import path from 'node:path';
import { runAgentCli, type AgentRun } from './run-agent-cli';

/**
 * The real Claude Code CLI (`claude -p`, pinned in test/agents/claude-code/package.json, which
 * .ci/run installs), run against a gateway with a home of its own.
 */
export const CLAUDE = path.join(__dirname, 'claude-code', 'node_modules', '.bin', 'claude');

export const claudeInstalled = existsSync(CLAUDE);

/**
 * `claude -p "say hi" --model <model>` with the gateway as its Anthropic API, killed after 90 s;
 * `args` go after it (`--session-id`, `--resume`).
 */
export function runClaude(options: {
  gatewayUrl: string;
  apiKey: string;
  model: string;
  home: string;
  args?: string[];
}): Promise<AgentRun> {
  return runAgentCli(CLAUDE, ['-p', 'say hi', '--model', options.model, ...(options.args ?? [])], {
    cwd: options.home,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: options.home,
      ANTHROPIC_BASE_URL: options.gatewayUrl,
      ANTHROPIC_AUTH_TOKEN: options.apiKey,
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  });
}
