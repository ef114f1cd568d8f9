import { afterEach, beforeEach } from 'vitest';
import type { ChatCompletionRequest } from '../../../contract';
import { createOpenAiProvider } from '../../../server/providers/openai';
import type { CallOptions, ModelTarget } from '../../../server/providers/types';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../../helpers/mock-openai-upstream';
import { callOptions, createProviderHarness, type ProviderHarness } from '../harness';

export { collect, rejectionOf as rejection } from '../harness';

export const API_KEY = 'sk-proj-T3stK3yN0tR3al0123456789abcdefXYZ';
export const FIXED_NOW = Date.UTC(2026, 2, 1, 8, 0, 0);

export const chatTarget: ModelTarget = { id: 'gpt-catalogue', upstreamModel: 'gpt-4o-mini', defaultMaxTokens: 4096 };
export const embeddingTarget: ModelTarget = {
  id: 'embed-catalogue',
  upstreamModel: 'text-embedding-3-small',
  defaultMaxTokens: 0,
  dimensions: [512, 1536],
};

export interface Harness extends ProviderHarness<MockOpenAiUpstream> {
  options: () => CallOptions;
}

/** A fresh harness (test/providers/harness.ts) per test of the file. */
export function useHarness(timeouts: { firstByteTimeoutMs?: number; idleTimeoutMs?: number } = {}): Harness {
  const harness = {} as Harness;
  beforeEach(async () => {
    Object.assign(
      harness,
      await createProviderHarness(startMockOpenAiUpstream, {
        create: createOpenAiProvider,
        name: 'openai',
        apiKey: API_KEY,
        now: FIXED_NOW,
        ...timeouts,
      }),
    );
    harness.options = () => callOptions(undefined, 'req-1');
  });
  afterEach(() => harness.close());
  return harness;
}

export function chatRequest(extra: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest {
  return { model: 'gpt-catalogue', messages: [{ role: 'user', content: 'Say hello' }], ...extra };
}
