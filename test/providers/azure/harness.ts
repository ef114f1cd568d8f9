import type { TokenCredential } from '@azure/identity';
import { afterEach, beforeEach } from 'vitest';
import type { ChatCompletionRequest } from '../../../contract';
import { createAzureProvider } from '../../../server/providers/azure';
import type { CallOptions, ModelTarget, ProviderAdapter } from '../../../server/providers/types';
import { startMockAzureUpstream, type MockAzureOptions, type MockAzureUpstream } from '../../helpers/mock-azure-upstream';
import { callOptions, createProviderHarness, type ProviderHarness } from '../harness';

export { collect, rejectionOf as rejection } from '../harness';

export const API_KEY = '8f3c1a2b4d5e6f708192a3b4c5d6e7f8';
export const FIXED_NOW = Date.UTC(2026, 2, 1, 8, 0, 0);
export const API_VERSION = '2024-10-21';

/** The deployment is the model target's upstream model. */
export const chatTarget: ModelTarget = { id: 'gpt-4o-azure', upstreamModel: 'gpt-4o-prod', defaultMaxTokens: 4096 };
export const embeddingTarget: ModelTarget = { id: 'embed-azure', upstreamModel: 'embed-3-small', defaultMaxTokens: 0, dimensions: [512] };

export interface Harness extends ProviderHarness<MockAzureUpstream> {
  options: () => CallOptions;
}

export interface HarnessSettings {
  /** `providers.<name>.options` of the adapter under test. */
  providerOptions?: Record<string, unknown>;
  upstream?: MockAzureOptions;
  credential?: TokenCredential;
  now?: number;
}

/** A fresh Azure resource (test/helpers/mock-azure-upstream.ts) and the adapter on it, per test of the file. */
export function useHarness(settings: HarnessSettings = {}): Harness {
  const harness = {} as Harness;
  beforeEach(async () => {
    Object.assign(
      harness,
      await createProviderHarness(() => startMockAzureUpstream({ apiKey: API_KEY, ...settings.upstream }), {
        create: (options): ProviderAdapter =>
          createAzureProvider({ ...options, options: settings.providerOptions ?? {} }, { credential: settings.credential }),
        name: 'azure',
        apiKey: API_KEY,
        now: settings.now ?? FIXED_NOW,
      }),
    );
    harness.options = () => callOptions(undefined, 'req-1');
  });
  afterEach(() => harness.close());
  return harness;
}

export function chatRequest(extra: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest {
  return { model: 'gpt-4o-azure', messages: [{ role: 'user', content: 'Say hello' }], ...extra };
}
