import { afterAll, beforeAll } from 'vitest';
import { createAnthropicProvider } from '../../../server/providers/anthropic';
import type { CallOptions, ModelTarget, ProviderAdapter } from '../../../server/providers/types';
import { MOCK_MODEL, startMockAnthropicUpstream, type MockAnthropicUpstream } from '../../helpers/mock-anthropic-upstream';
import { createTestAdapter } from '../harness';

/** Looks like a real key, long enough for redact() to catch fragments of it. */
export const TEST_API_KEY = 'sk-ant-api03-Qm7TESTKEYv2Lx9Rw4Tz8Yb1Nc3Pd5Fh6Gj0Kk';

export const TEST_TARGET: ModelTarget = { id: 'claude-haiku', upstreamModel: MOCK_MODEL, defaultMaxTokens: 1024 };

/** Fixed clock and ids: replies are reproducible. */
export const TEST_NOW_MS = 1_767_225_600_123;

export interface AnthropicTestProvider {
  provider: ProviderAdapter;
  close(): Promise<void>;
}

/** The adapter under test, wired to the mock (test/providers/harness.ts). */
export function createAnthropicTestProvider(upstream: MockAnthropicUpstream): AnthropicTestProvider {
  const { adapter, close } = createTestAdapter(upstream, {
    create: createAnthropicProvider,
    name: 'anthropic',
    apiKey: TEST_API_KEY,
    now: TEST_NOW_MS,
    idPrefix: 'test',
  });
  return { provider: adapter, close };
}

/**
 * For the enclosing describe: a mock Anthropic upstream and the adapter on it, both closed after
 * it. The two objects are filled in beforeAll.
 */
export function useAnthropicTestProvider(): { upstream: MockAnthropicUpstream; client: AnthropicTestProvider } {
  const upstream = {} as MockAnthropicUpstream;
  const client = {} as AnthropicTestProvider;
  beforeAll(async () => {
    Object.assign(upstream, await startMockAnthropicUpstream());
    Object.assign(client, createAnthropicTestProvider(upstream));
  });
  afterAll(async () => {
    await client.close();
    await upstream.close();
  });
  return { upstream, client };
}

export function callOptions(signal: AbortSignal = new AbortController().signal): CallOptions {
  return { signal, requestId: 'req-test' };
}
