import { expect } from 'vitest';
import { modelEntry, upstreamSection } from '../e2e/helpers';
import { startMockAnthropicUpstream, type MockAnthropicUpstream } from '../helpers/mock-anthropic-upstream';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { useGatewayOnUpstreams } from '../helpers/gateway-on-upstreams';

/**
 * One gateway for the framework tests, on an OpenAI-type mock (models `fw-chat`, `fw-embed`)
 * and an Anthropic-type mock (`fw-claude`), with a key and a usage key of one account.
 */
export interface FrameworkGateway {
  /** The model name the catalogue sends upstream for every `fw-` model. */
  upstreamModel: string;
  baseUrl(): string;
  apiKey(): string;
  openai(): MockOpenAiUpstream;
  anthropic(): MockAnthropicUpstream;
  /** Requests in the account's usage report. */
  reportedRequests(): Promise<number>;
  /** Waits (up to 5 s: usage is written in batches) until the report counts `requests`. */
  expectReported(requests: number): Promise<void>;
}

const UPSTREAM_MODEL = 'upstream-model-2026-01-01';

function configYaml(openai: MockOpenAiUpstream, anthropic: MockAnthropicUpstream): string {
  return `${upstreamSection()}
usage:
  flush_interval_ms: 50
providers:
  oai: { type: openai, base_url: ${openai.baseUrl} }
  claude: { type: anthropic, base_url: ${anthropic.baseUrl} }
models:
${modelEntry('fw-chat', 'oai', UPSTREAM_MODEL, 'chat, function_calling, json_mode', 128_000, 'input_per_million: 1, output_per_million: 2')}
${modelEntry('fw-embed', 'oai', UPSTREAM_MODEL, 'embeddings', 8_191, 'input_per_million: 0.1, output_per_million: 0')}
${modelEntry('fw-claude', 'claude', UPSTREAM_MODEL, 'chat, function_calling', 200_000, 'input_per_million: 3, output_per_million: 15')}
`;
}

export function useFrameworkGateway(): FrameworkGateway {
  const fixture = useGatewayOnUpstreams(
    async () => ({ openai: await startMockOpenAiUpstream(), anthropic: await startMockAnthropicUpstream() }),
    ({ openai, anthropic }) => ({ configYaml: configYaml(openai, anthropic) }),
  );
  const reportedRequests = () => fixture.gateway.reportedRequests(fixture.usageKey);

  return {
    upstreamModel: UPSTREAM_MODEL,
    baseUrl: () => fixture.gateway.baseUrl,
    apiKey: () => fixture.apiKey,
    openai: () => fixture.upstreams.openai,
    anthropic: () => fixture.upstreams.anthropic,
    reportedRequests,
    async expectReported(requests) {
      await expect.poll(reportedRequests, { timeout: 5_000 }).toBe(requests);
    },
  };
}
