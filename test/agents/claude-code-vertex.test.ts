import { describe, expect, it } from 'vitest';
import { upstreamSection } from '../e2e/helpers';
import { textStream } from '../helpers/mock-anthropic-upstream';
import { startMockVertexUpstream, type MockVertexUpstream } from '../helpers/mock-vertex-upstream';
import { useAgentGateway } from './agent-gateway';
import { CLAUDE, claudeInstalled, runClaude } from './claude-code-cli';

/**
 * The real Claude Code CLI (claude-code-cli.ts) through the gateway onto a vertex-type Claude
 * model (docs/vertex.md): its /v1/messages requests pass through to the mock Vertex AI's
 * `:streamRawPredict` with a bearer token the mock issued, it prints the mock's reply and
 * exits 0.
 */
if (!claudeInstalled)
  console.warn(`Skipping the Claude Code on Vertex test: ${CLAUDE} is missing (run npm ci in test/agents/claude-code).`);

const MODEL = 'claude-sonnet-4@20250514';

const CONFIG = (vertex: MockVertexUpstream) => `${upstreamSection(20_000)}
providers:
  vertex-claude:
    type: vertex
    base_url: ${vertex.baseUrl}
    options: { project: mock-project, region: us-east5, publisher: anthropic, credentials_file: ${vertex.externalAccountFile} }
models:
  - id: claude-vertex
    provider: vertex-claude
    upstream_model: ${MODEL}
    capabilities: [chat, vision, function_calling, json_mode]
    context_window: 200000
    pricing: { input_per_million: 3, output_per_million: 15 }
`;

describe.skipIf(!claudeInstalled)('Claude Code through the gateway onto Claude on Vertex AI', () => {
  const agent = useAgentGateway(
    async () => ({ vertex: await startMockVertexUpstream() }),
    ({ vertex }) => ({ configYaml: CONFIG(vertex) }),
    'claude-home-',
  );

  it('answers with the Vertex model, every request authorized', async () => {
    const { upstreams, gateway, apiKey, home } = agent;
    const { vertex } = upstreams;
    // Whatever it asks (the answer, and any side request), the mock answers with the same reply.
    vertex.setDefault({ type: 'sse', events: textStream(['Hello from ', 'Claude on Vertex.']) });
    const result = await runClaude({ gatewayUrl: gateway.baseUrl, apiKey, model: 'claude-vertex', home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Hello from Claude on Vertex.');
    const request = vertex.requests.find((entry) => entry.path.endsWith(`/models/${MODEL}:streamRawPredict`));
    expect(request?.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
    expect(request?.body).not.toHaveProperty('model');
    expect(vertex.refused).toEqual([]);
    expect(vertex.issued).toHaveLength(1);
  }, 120_000);
});
