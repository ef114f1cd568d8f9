import type { ChatCompletionChunk, ChatCompletionRequest } from '../../../contract';
import { createHttpClient } from '../../../server/providers/http-client';
import { createGeminiProvider } from '../../../server/providers/gemini';
import type { CallOptions, ChatStream, ModelTarget, ProviderAdapter } from '../../../server/providers/types';
import { startMockGeminiUpstream, type MockGeminiUpstream } from '../../helpers/mock-gemini-upstream';

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

export interface Harness {
  upstream: MockGeminiUpstream;
  adapter: ProviderAdapter;
  close(): Promise<void>;
}

/** The adapter on the real pooled HTTP client, against a local mock Gemini; fixed clock and ids. */
export async function createHarness(): Promise<Harness> {
  const upstream = await startMockGeminiUpstream();
  const http = createHttpClient({ connectTimeoutMs: 2_000, firstByteTimeoutMs: 5_000, idleTimeoutMs: 5_000, keepAliveMs: 20_000 });
  let counter = 0;
  const adapter = createGeminiProvider({
    name: 'gemini',
    baseUrl: `${upstream.baseUrl}/`,
    apiKey: API_KEY,
    http,
    now: () => NOW,
    generateId: () => `id${++counter}`,
  });
  return {
    upstream,
    adapter,
    close: async () => {
      await http.close();
      await upstream.close();
    },
  };
}

export function callOptions(signal: AbortSignal = new AbortController().signal): CallOptions {
  return { signal, requestId: 'req_test' };
}

export function chatRequest(overrides: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest {
  return { model: 'gemini-flash', messages: [{ role: 'user', content: 'Hello' }], ...overrides };
}

export async function collect(stream: ChatStream): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream.chunks) chunks.push(chunk);
  return chunks;
}

/** Runs `promise` and returns what it rejected with (fails when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected a rejection.');
}
