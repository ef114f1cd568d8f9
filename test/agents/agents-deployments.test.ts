import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { upstreamSection } from '../e2e/helpers';
import { MOCK_MODEL, startMockAnthropicUpstream, textStream } from '../helpers/mock-anthropic-upstream';
import { textResponseStream } from '../helpers/mock-openai-responses';
import { startMockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import type { RecordedRequest } from '../helpers/mock-upstream';
import { useAgentGateway } from './agent-gateway';
import { claudeInstalled, runClaude } from './claude-code-cli';
import { codexInstalled, runCodex, useGatewayInCodex } from './codex-cli';

/**
 * docs/routing.md, "Session affinity", with the real agents: `claude -p` and `codex exec`,
 * each run five times in one session (the first run, then resumed), against a model
 * served by three deployments, each its own mock upstream. Every request of the session reaches
 * one upstream.
 */
const LETTERS = ['a', 'b', 'c'] as const;
// Without affinity, five calls at random over three equal deployments all land on one once in 81 runs.
const RUNS = 5;

/** A model `id` on three deployments `<id>-a`, `-b`, `-c`, on the providers `<prefix>-a`, `-b`, `-c` (weights equal). */
function fleetModel(id: string, providerPrefix: string, upstreamModel: string): string {
  return `  - id: ${id}
    capabilities: [chat, vision, function_calling, json_mode]
    context_window: 200000
    pricing: { input_per_million: 1, output_per_million: 2 }
    upstream_model: ${upstreamModel}
    deployments:
${LETTERS.map((letter) => `      - { id: ${id}-${letter}, provider: ${providerPrefix}-${letter} }`).join('\n')}`;
}

/** Of each upstream, the model calls it received (`path`), in upstream order. */
function callsPerUpstream(upstreams: Record<string, { requests: RecordedRequest[] }>, path: string): number[] {
  return LETTERS.map((letter) => upstreams[letter]!.requests.filter((request) => request.path === path).length);
}

describe.skipIf(!claudeInstalled)('Claude Code on a model with three deployments', () => {
  const agent = useAgentGateway(
    async () => {
      const upstreams = {
        a: await startMockAnthropicUpstream(),
        b: await startMockAnthropicUpstream(),
        c: await startMockAnthropicUpstream(),
      };
      for (const letter of LETTERS) upstreams[letter].setDefault({ type: 'sse', events: textStream([`Hello from ${letter}.`]) });
      return upstreams;
    },
    (upstreams) => ({
      configYaml: `${upstreamSection(20_000)}
providers:
${LETTERS.map((letter) => `  claude-${letter}: { type: anthropic, base_url: ${upstreams[letter].baseUrl}, api_key_env: AGENT_ANTHROPIC_KEY }`).join('\n')}
models:
${fleetModel('claude-fleet', 'claude', MOCK_MODEL)}
`,
      env: { AGENT_ANTHROPIC_KEY: 'sk-ant-agent-test-key-0123456789' },
    }),
    'claude-fleet-home-',
  );

  it('sends every request of one session to one deployment', { timeout: 300_000 }, async () => {
    const session = randomUUID();
    for (let run = 0; run < RUNS; run++) {
      const result = await runClaude({
        gatewayUrl: agent.gateway.baseUrl,
        apiKey: agent.apiKey,
        model: 'claude-fleet',
        home: agent.home,
        args: run === 0 ? ['--session-id', session] : ['--resume', session],
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/Hello from [abc]\./);
    }
    const calls = callsPerUpstream(agent.upstreams, '/v1/messages');
    expect(calls.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(RUNS);
    expect(calls.filter((count) => count > 0)).toHaveLength(1);
    // The session the gateway read: Claude Code's own, on each request.
    const requests = LETTERS.flatMap((letter) => agent.upstreams[letter].requests.filter((request) => request.path === '/v1/messages'));
    for (const request of requests) expect(JSON.stringify(request.body) + JSON.stringify(request.headers)).toContain(session);
  });
});

describe.skipIf(!codexInstalled)('Codex on a model with three deployments', () => {
  const UPSTREAM_MODEL = 'gpt-5-mini-2026-01-01';
  const agent = useAgentGateway(
    async () => {
      const upstreams = { a: await startMockOpenAiUpstream(), b: await startMockOpenAiUpstream(), c: await startMockOpenAiUpstream() };
      for (const letter of LETTERS) {
        upstreams[letter].setDefault(textResponseStream(UPSTREAM_MODEL, [`Hi from ${letter}!`], { input: 800, output: 7, cached: 512 }));
      }
      return upstreams;
    },
    (upstreams) => ({
      configYaml: `${upstreamSection(20_000)}
providers:
${LETTERS.map((letter) => `  codex-${letter}: { type: openai, base_url: ${upstreams[letter].baseUrl}, responses_api: true }`).join('\n')}
models:
${fleetModel('codex-fleet', 'codex', UPSTREAM_MODEL)}
`,
    }),
    'codex-fleet-home-',
  );

  it('sends every request of one session to one deployment', { timeout: 300_000 }, async () => {
    const { home, apiKey } = agent;
    await useGatewayInCodex(home, agent.gateway.baseUrl, 'codex-fleet');
    for (let run = 0; run < RUNS; run++) {
      const result =
        run === 0 ? await runCodex(home, home, apiKey, 'say hi') : await runCodex(home, home, apiKey, 'resume', '--last', 'say hi again');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout + result.stderr).toMatch(/Hi from [abc]!/);
    }
    const calls = callsPerUpstream(agent.upstreams, '/v1/responses');
    expect(calls.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(RUNS);
    expect(calls.filter((count) => count > 0)).toHaveLength(1);
    // One session throughout: Codex's prompt_cache_key is its session id.
    const requests = LETTERS.flatMap((letter) => agent.upstreams[letter].requests.filter((request) => request.path === '/v1/responses'));
    const keys = new Set(requests.map((request) => (request.body as { prompt_cache_key?: string }).prompt_cache_key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/\S/);
  });
});
