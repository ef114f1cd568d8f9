import type { ChatCompletionChunk, ChatCompletionRequest } from '../../../contract';
import { createGeminiProvider } from '../../../server/providers/gemini';
import type { CallOptions, ChatStream, ModelTarget } from '../../../server/providers/types';
import { startMockGeminiUpstream, type MockGeminiUpstream } from '../../helpers/mock-gemini-upstream';
import { collect as collectChunks, createProviderHarness, useSharedHarness, type ProviderHarness } from '../harness';

export { rejectionOf } from '../harness';

/** Shaped like a real Gemini key, so that redaction of fragments is exercised too. */
export const API_KEY = 'AIzaSyD-TESTKEY-0123456789abcdefghijklm';
export const NOW = 1_750_000_000_987;

export const chatTarget: ModelTarget = { id: 'gemini-flash', upstreamModel: 'gemini-2.5-flash', defaultMaxTokens: 4096 };
export const embeddingTarget: ModelTarget = {
  id: 'gemini-embedding',
  upstreamModel: 'text-embedding-004',
  defaultMaxTokens: 0,
  dimensions: [256, 768],
};

export type Harness = ProviderHarness<MockGeminiUpstream>;

/** The adapter against a local mock Gemini (test/providers/harness.ts). */
export function createHarness(): Promise<Harness> {
  return createProviderHarness(startMockGeminiUpstream, { create: createGeminiProvider, name: 'gemini', apiKey: API_KEY, now: NOW });
}

/** For the enclosing describe: one harness (`createHarness`) shared by its tests (test/providers/harness.ts). */
export function useHarness(): Harness {
  return useSharedHarness(createHarness);
}

export function callOptions(signal: AbortSignal = new AbortController().signal): CallOptions {
  return { signal, requestId: 'req_test' };
}

export function chatRequest(overrides: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest {
  return { model: 'gemini-flash', messages: [{ role: 'user', content: 'Hello' }], ...overrides };
}

export function collect(stream: ChatStream): Promise<ChatCompletionChunk[]> {
  return collectChunks(stream.chunks);
}
