import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The real Codex CLI (pinned in test/agents/codex/package.json, installed by .ci/run), run the
 * way the Codex tests drive it: `codex exec` in a throwaway home whose config.toml names the
 * gateway as its only model provider, with `wire_api = "responses"` and nothing else.
 */
export const CODEX = join(__dirname, 'codex', 'node_modules', '.bin', 'codex');
export const codexInstalled = existsSync(CODEX);
if (!codexInstalled) console.warn(`Skipping the Codex CLI tests: ${CODEX} is missing (run npm ci in test/agents/codex).`);

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCodex(home: string, workdir: string, apiKey: string, prompt: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(CODEX, ['exec', '--skip-git-repo-check', prompt], {
      cwd: workdir,
      env: { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: home, GATEWAY_API_KEY: apiKey, RUST_LOG: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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

/** `codex exec "say hi"` with the gateway at `gatewayBaseUrl` (without /v1) and `model`. */
export async function codexSayHi(home: string, gatewayBaseUrl: string, apiKey: string, model: string): Promise<Run> {
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
  return runCodex(home, home, apiKey, 'say hi');
}
