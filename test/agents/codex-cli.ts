import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgentCli, type AgentRun } from './run-agent-cli';

/**
 * The real Codex CLI (pinned in test/agents/codex/package.json, installed by .ci/run), run the
 * way the Codex tests drive it: `codex exec` in a throwaway home whose config.toml names the
 * gateway as its only model provider, with `wire_api = "responses"` and nothing else.
 */
export const CODEX = join(__dirname, 'codex', 'node_modules', '.bin', 'codex');
export const codexInstalled = existsSync(CODEX);
if (!codexInstalled) console.warn(`Skipping the Codex CLI tests: ${CODEX} is missing (run npm ci in test/agents/codex).`);

/** `codex exec --skip-git-repo-check <args>` (a prompt, or `resume --last <prompt>`). */
export function runCodex(home: string, workdir: string, apiKey: string, ...args: string[]): Promise<AgentRun> {
  return runAgentCli(CODEX, ['exec', '--skip-git-repo-check', ...args], {
    cwd: workdir,
    env: { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: home, GATEWAY_API_KEY: apiKey, RUST_LOG: 'error' },
  });
}

/** `codex exec "say hi"` with the gateway at `gatewayBaseUrl` (without /v1) and `model`. */
export async function codexSayHi(home: string, gatewayBaseUrl: string, apiKey: string, model: string): Promise<AgentRun> {
  await useGatewayInCodex(home, gatewayBaseUrl, model);
  return runCodex(home, home, apiKey, 'say hi');
}

/** Codex's config.toml in `home`: the gateway at `gatewayBaseUrl` (without /v1) as its only model provider, `model` its model. */
export async function useGatewayInCodex(home: string, gatewayBaseUrl: string, model: string): Promise<void> {
  await writeFile(
    join(home, 'config.toml'),
    [
      'model_provider = "gateway"',
      `model = "${model}"`,
      '',
      '[model_providers.gateway]',
      'name = "Model gateway"',
      `base_url = "${gatewayBaseUrl}/v1"`,
      'env_key = "GATEWAY_API_KEY"',
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
}
