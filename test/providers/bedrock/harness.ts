import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../../contract';
import { createBedrockProvider } from '../../../server/providers/bedrock';
import { createHttpClient } from '../../../server/providers/http-client';
import type { ChatStream, HttpClient, ModelTarget, ProviderAdapter } from '../../../server/providers/types';
import {
  MOCK_ACCESS_KEY_ID,
  MOCK_API_KEY,
  MOCK_REGION,
  MOCK_SECRET_ACCESS_KEY,
  startMockBedrockUpstream,
  type MockBedrockUpstream,
} from '../../helpers/mock-bedrock-upstream';
import { collect as collectChunks, useSharedHarness } from '../harness';

export { callOptions, rejectionOf } from '../harness';

/**
 * The Bedrock adapter against a local mock Bedrock (test/helpers/mock-bedrock-upstream.ts),
 * through the real pooled HTTP client, with a fixed clock and numbered ids: `adapter` signs
 * with Signature V4 (static credentials in place of AWS's default chain), `bearer` sends the
 * Bedrock API key.
 */
export const NOW = 1_750_000_000_987;

export const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
export const chatTarget: ModelTarget = { id: 'claude-bedrock', upstreamModel: CLAUDE, defaultMaxTokens: 4096 };
export const novaTarget: ModelTarget = { id: 'nova', upstreamModel: 'amazon.nova-pro-v1:0', defaultMaxTokens: 4096 };

export const staticCredentials: AwsCredentialIdentityProvider = () =>
  Promise.resolve({ accessKeyId: MOCK_ACCESS_KEY_ID, secretAccessKey: MOCK_SECRET_ACCESS_KEY });

export interface Harness {
  upstream: MockBedrockUpstream;
  http: HttpClient;
  adapter: ProviderAdapter;
  bearer: ProviderAdapter;
  /** Another adapter on the same client (and upstream, unless `baseUrl` names another). */
  create(options: { apiKey?: string; credentials?: AwsCredentialIdentityProvider; now?: () => number; baseUrl?: string }): ProviderAdapter;
  close(): Promise<void>;
}

export async function createHarness(): Promise<Harness> {
  const upstream = await startMockBedrockUpstream({ now: () => NOW });
  const http = createHttpClient({ connectTimeoutMs: 2_000, firstByteTimeoutMs: 5_000, idleTimeoutMs: 5_000, keepAliveMs: 20_000 });
  let counter = 0;
  const create: Harness['create'] = (options) =>
    createBedrockProvider(
      {
        name: 'bedrock',
        baseUrl: options.baseUrl ?? upstream.baseUrl,
        apiKey: options.apiKey ?? '',
        http,
        now: options.now ?? (() => NOW),
        generateId: () => `id${++counter}`,
        options: { region: MOCK_REGION },
      },
      { credentials: options.credentials ?? staticCredentials },
    );
  return {
    upstream,
    http,
    adapter: create({}),
    bearer: create({ apiKey: MOCK_API_KEY }),
    create,
    close: async () => {
      await http.close();
      await upstream.close();
    },
  };
}

/** For the enclosing describe: one harness (`createHarness`) shared by its tests (test/providers/harness.ts). */
export function useHarness(): Harness {
  return useSharedHarness(createHarness);
}

export function chatRequest(overrides: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest {
  return { model: 'claude-bedrock', messages: [{ role: 'user', content: 'Hello' }], ...overrides };
}

export function collect(stream: ChatStream): Promise<ChatCompletionChunk[]> {
  return collectChunks(stream.chunks);
}
