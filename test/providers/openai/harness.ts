import { afterEach, beforeEach } from 'vitest';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../../contract';
import { createHttpClient } from '../../../server/providers/http-client';
import { createOpenAiProvider } from '../../../server/providers/openai';
import type { CallOptions, ModelTarget, ProviderAdapter } from '../../../server/providers/types';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../../helpers/mock-openai-upstream';

/** Shared set-up of the adapter tests: a fresh mock upstream and the real pooled client per test. */

export const API_KEY = 'sk-proj-T3stK3yN0tR3al0123456789abcdefXYZ';
export const FIXED_NOW = Date.UTC(2026, 2, 1, 8, 0, 0);

export const chatTarget: ModelTarget = { id: 'gpt-catalogue', upstreamModel: 'gpt-4o-mini', defaultMaxTokens: 4096 };
export const embeddingTarget: ModelTarget = { id: 'embed-catalogue', upstreamModel: 'text-embedding-3-small', defaultMaxTokens: 0, dimensions: [512, 1536] };

export interface Harness {
  upstream: MockOpenAiUpstream;
  adapter: ProviderAdapter;
  /** A provider with an empty key, for local servers. */
  keyless: ProviderAdapter;
  options: () => CallOptions;
}

export function useHarness(timeouts: { firstByteTimeoutMs?: number; idleTimeoutMs?: number } = {}): Harness {
  const harness = {} as Harness;
  let http: ReturnType<typeof createHttpClient>;
  beforeEach(async () => {
    harness.upstream = await startMockOpenAiUpstream();
    http = createHttpClient({ connectTimeoutMs: 2_000, firstByteTimeoutMs: timeouts.firstByteTimeoutMs ?? 5_000, idleTimeoutMs: timeouts.idleTimeoutMs ?? 5_000, keepAliveMs: 20_000 });
    let counter = 0;
    const base = { name: 'openai', baseUrl: `${harness.upstream.baseUrl}/`, http, now: () => FIXED_NOW, generateId: () => `id${++counter}` };
    harness.adapter = createOpenAiProvider({ ...base, apiKey: API_KEY });
    harness.keyless = createOpenAiProvider({ ...base, name: 'ollama', apiKey: '' });
    harness.options = () => ({ signal: new AbortController().signal, requestId: 'req-1' });
  });
  afterEach(async () => {
    await harness.upstream.close();
    await http.close();
  });
  return harness;
}

export function chatRequest(extra: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest {
  return { model: 'gpt-catalogue', messages: [{ role: 'user', content: 'Say hello' }], ...extra };
}

export async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const result: ChatCompletionChunk[] = [];
  for await (const chunk of chunks) result.push(chunk);
  return result;
}

/** Runs `promise` and returns what it rejected with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected a rejection.');
}
