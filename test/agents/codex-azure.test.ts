import { describe, expect, it } from 'vitest';
import { modelEntry, upstreamSection } from '../e2e/helpers';
import { azureStreamReply, startMockAzureUpstream, type MockAzureUpstream } from '../helpers/mock-azure-upstream';
import { textResponseStream } from '../helpers/mock-openai-responses';
import { useAgentGateway } from './agent-gateway';
import { codexInstalled, codexSayHi } from './codex-cli';

/**
 * The real Codex CLI (codex-cli.ts) through the gateway onto `azure`-type models (docs/azure.md):
 * passed through to the v1 API's /openai/v1/responses, and translated to chat on the
 * deployment-path API, whose streams open with Azure's prompt filter chunk.
 */
const AZURE_KEY = '5e6f708192a3b4c5d6e7f80c1d2e3f40';
const NATIVE_REPLY = 'Hi from Azure responses!';
const CHAT_REPLY = 'Hi from Azure chat!';

function configYaml(azure: MockAzureUpstream): string {
  const model = (id: string, provider: string, deployment: string) =>
    modelEntry(id, provider, deployment, 'chat, function_calling, vision', 200_000, 'input_per_million: 1, output_per_million: 2');
  return `${upstreamSection(20_000)}
providers:
  azure-v1: { type: azure, base_url: ${azure.endpoint}, api_key_env: CODEX_AZURE_KEY, responses_api: true }
  azure-dated: { type: azure, base_url: ${azure.endpoint}, api_key_env: CODEX_AZURE_KEY, options: { api_version: 2025-04-01-preview } }
models:
${model('azure-native', 'azure-v1', 'gpt-5-mini-prod')}
${model('azure-chat', 'azure-dated', 'gpt-5-mini-chat')}
`;
}

describe.skipIf(!codexInstalled)('the Codex CLI through the gateway onto Azure OpenAI', () => {
  const agent = useAgentGateway(
    async () => ({ azure: await startMockAzureUpstream({ apiKey: AZURE_KEY }) }),
    ({ azure }) => ({ configYaml: configYaml(azure), env: { CODEX_AZURE_KEY: AZURE_KEY } }),
    'codex-azure-home-',
  );
  const sayHi = (model: string) => codexSayHi(agent.home, agent.gateway.baseUrl, agent.apiKey, model);

  it('passed through to the v1 API: prints the reply, exits 0', { timeout: 120_000 }, async () => {
    agent.upstreams.azure.setDefault(
      textResponseStream('gpt-5-mini-prod', ['Hi from ', 'Azure responses!'], { input: 800, output: 6, cached: 512 }),
    );
    const run = await sayHi('azure-native');
    expect(run.stdout + run.stderr).toContain(NATIVE_REPLY);
    expect(run.code, run.stderr).toBe(0);
    const request = agent.upstreams.azure.requests.at(-1);
    expect(request?.path).toBe('/openai/v1/responses');
    expect(request?.headers['api-key']).toBe(AZURE_KEY);
    expect(request?.body).toMatchObject({ model: 'gpt-5-mini-prod', stream: true });
  });

  it('translated to chat on the deployment-path API: prints the reply, exits 0', { timeout: 120_000 }, async () => {
    agent.upstreams.azure.setDefault(
      azureStreamReply(['Hi from ', 'Azure chat!'], { prompt: 900, completion: 8 }, { model: 'gpt-5-mini' }),
    );
    const run = await sayHi('azure-chat');
    expect(run.stdout + run.stderr).toContain(CHAT_REPLY);
    expect(run.code, run.stderr).toBe(0);
    const request = agent.upstreams.azure.requests.at(-1);
    expect(request?.path).toBe('/openai/deployments/gpt-5-mini-chat/chat/completions?api-version=2025-04-01-preview');
    expect(request?.body).toMatchObject({ model: 'gpt-5-mini-chat', stream: true });
  });
});
