import { beforeAll, describe, expect, it } from 'vitest';
import { createBedrockProvider } from '../../server/providers/bedrock';
import { MOCK_MODEL, startMockAnthropicUpstream, textStream, type MockAnthropicUpstream } from '../helpers/mock-anthropic-upstream';
import {
  anthropicChunks,
  MOCK_ACCESS_KEY_ID,
  MOCK_SECRET_ACCESS_KEY,
  startMockBedrockUpstream,
  type MockBedrockUpstream,
} from '../helpers/mock-bedrock-upstream';
import { chatStreamReply, startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { modelEntry, upstreamSection } from '../e2e/helpers';
import { useAgentGateway } from './agent-gateway';
import { CLAUDE, claudeInstalled, runClaude } from './claude-code-cli';
import type { AgentRun } from './run-agent-cli';

/**
 * The real Claude Code CLI (claude-code-cli.ts: `claude -p`, pinned in test/agents/claude-code/package.json, which
 * .ci/run installs) against the gateway, with an anthropic-type mock (pass-through), an
 * openai-type mock (translated) and a bedrock-type mock serving Claude (passed through
 * InvokeModelWithResponseStream, signatures verified) behind it: it prints the mock's reply,
 * exits 0, and its requests show in the usage report.
 */
const installed = claudeInstalled;
if (!installed) console.warn(`Skipping the Claude Code tests: ${CLAUDE} is missing (run npm ci in test/agents/claude-code).`);

const CONFIG = (anthropic: MockAnthropicUpstream, openai: MockOpenAiUpstream, bedrock: MockBedrockUpstream) => `${upstreamSection(20_000)}
providers:
  claude: { type: anthropic, base_url: ${anthropic.baseUrl}, api_key_env: AGENT_ANTHROPIC_KEY }
  oai: { type: openai, base_url: ${openai.baseUrl}, api_key_env: AGENT_OPENAI_KEY }
  aws: { type: bedrock, base_url: ${bedrock.baseUrl}, options: { region: us-east-1 } }
models:
${modelEntry('claude-bedrock', 'aws', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'chat, vision, function_calling, json_mode', 200_000, 'input_per_million: 3, output_per_million: 15')}
${modelEntry('claude-passthrough', 'claude', MOCK_MODEL, 'chat, vision, function_calling, json_mode', 200_000, 'input_per_million: 0.8, output_per_million: 4')}
${modelEntry('gpt-translated', 'oai', 'gpt-4o-mini', 'chat, vision, function_calling, json_mode', 128_000, 'input_per_million: 0.15, output_per_million: 0.6')}
`;

describe.skipIf(!installed)('Claude Code through the gateway', () => {
  const agent = useAgentGateway(
    async () => ({
      anthropic: await startMockAnthropicUpstream(),
      openai: await startMockOpenAiUpstream(),
      bedrock: await startMockBedrockUpstream(),
    }),
    ({ anthropic, openai, bedrock }) => ({
      configYaml: CONFIG(anthropic, openai, bedrock),
      env: { AGENT_ANTHROPIC_KEY: 'sk-ant-agent-test-key-0123456789', AGENT_OPENAI_KEY: 'sk-openai-agent-test-0123456789' },
      // AWS credentials the mock knows, in place of the default chain's.
      providerFactories: {
        bedrock: (options) =>
          createBedrockProvider(options, {
            credentials: () => Promise.resolve({ accessKeyId: MOCK_ACCESS_KEY_ID, secretAccessKey: MOCK_SECRET_ACCESS_KEY }),
          }),
      },
    }),
    'claude-home-',
  );
  /** One gateway key per test, so that each one's requests are counted apart in the report. */
  const apiKeys = new Map<string, string>();
  beforeAll(async () => {
    for (const name of ['pass-through', 'translated', 'bedrock']) {
      apiKeys.set(name, (await agent.gateway.createKey(agent.accountId, { name })).key);
    }
  });

  /** The key's requests and tokens in GET /v1/usage/keys, once the recorder has written them. */
  async function reportedUsage(keyName: string): Promise<{ requests: number; prompt_tokens: number; completion_tokens: number }> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await agent.gateway.http.get('/v1/usage/keys').set('authorization', `Bearer ${agent.usageKey}`);
      const entry = (
        response.body as { keys: { name: string; total: { requests: number; prompt_tokens: number; completion_tokens: number } }[] }
      ).keys.find((key) => key.name === keyName);
      if (entry && entry.total.requests > 0) return entry.total;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for the usage of ${keyName}: ${JSON.stringify(response.body)}`);
      // Well under the usage route's 30 requests per minute per usage key.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  function runClaudeWith(model: string, keyName: string): Promise<AgentRun> {
    return runClaude({ gatewayUrl: agent.gateway.baseUrl, apiKey: apiKeys.get(keyName) ?? '', model, home: agent.home });
  }

  it('works with an anthropic-type model (pass-through)', async () => {
    // Whatever it asks (the answer, and any side request), the mock answers with the same reply.
    for (let index = 0; index < 8; index++) {
      agent.upstreams.anthropic.reply({ type: 'sse', events: textStream(['Hello from ', 'the pass-through mock.']) });
    }
    const result = await runClaudeWith('claude-passthrough', 'pass-through');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Hello from the pass-through mock.');
    const request = agent.upstreams.anthropic.requests.find((entry) => entry.path === '/v1/messages');
    expect(request?.body).toMatchObject({ model: MOCK_MODEL, stream: true });
    // textStream's usage: 25 input and 15 output tokens per request.
    const usage = await reportedUsage('pass-through');
    expect(usage.requests).toBe(agent.upstreams.anthropic.requests.length);
    expect(usage).toMatchObject({ prompt_tokens: 25 * usage.requests, completion_tokens: 15 * usage.requests });
  }, 120_000);

  it('works with an openai-type model (translated)', async () => {
    agent.upstreams.openai.setDefault(
      chatStreamReply(['Hello from ', 'the translated mock.'], { prompt: 30, completion: 6 }, 'gpt-4o-mini'),
    );
    const result = await runClaudeWith('gpt-translated', 'translated');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Hello from the translated mock.');
    expect(agent.upstreams.openai.requests.length).toBeGreaterThan(0);
    const usage = await reportedUsage('translated');
    expect(usage.requests).toBe(agent.upstreams.openai.requests.length);
    expect(usage).toMatchObject({ prompt_tokens: 30 * usage.requests, completion_tokens: 6 * usage.requests });
  }, 120_000);

  it('works with Claude on a bedrock-type provider (passed through InvokeModel)', async () => {
    const events = textStream(['Hello from ', 'the Bedrock mock.']).filter((event) => typeof event === 'object');
    agent.upstreams.bedrock.setDefault({ type: 'events', events: anthropicChunks(events) });
    const result = await runClaudeWith('claude-bedrock', 'bedrock');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Hello from the Bedrock mock.');
    const request = agent.upstreams.bedrock.requests.find((entry) => entry.path.endsWith('/invoke-with-response-stream'));
    expect(request?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
    expect(request?.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' });
    expect(request?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
    const usage = await reportedUsage('bedrock');
    expect(usage.requests).toBe(agent.upstreams.bedrock.requests.length);
    expect(usage).toMatchObject({ prompt_tokens: 25 * usage.requests, completion_tokens: 15 * usage.requests });
  }, 120_000);
});
