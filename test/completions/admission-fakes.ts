import { createRouting } from '../../server/routing/create-routing';
import { parseConfigText, type Config } from '../../server/config/load-config';
import type { AdmissionDependencies } from '../../server/completions/admission';
import { createCatalogue } from '../../server/completions/resolve-model';
import type { CachedApiKey } from '../../server/keys/key-cache';
import { createGatewayMetrics } from '../../server/metrics/gateway-metrics';
import type { ClientConnection } from '../../server/pipeline/reply';
import { RequestContext } from '../../server/pipeline/request-context';
import type { ProviderRegistry } from '../../server/providers/registry';
import type { ProviderAdapter } from '../../server/providers/types';
import { createKeyLimiter } from '../../server/rate-limit/key-limiter';
import { createMemoryRateLimitStore } from '../../server/rate-limit/memory-store';
import { createStreamLimiter } from '../../server/rate-limit/stream-limiter';
import { MemoryUsageSink } from '../../server/usage/types';

/**
 * Fakes for unit tests of the model call's core (completions/): a catalogue with a chat model
 * falling back across a Messages-speaking, a Responses-serving and a plain provider, an
 * embeddings model; the real limiter over an in-memory store on a fake clock; adapters that
 * must not be called (admission never calls an upstream).
 */
export const CATALOGUE_YAML = `
providers:
  plain: { type: mock }
  claude: { type: mock }
  oai: { type: openai, base_url: https://api.example.test/v1, responses_api: true }
models:
  - id: chat-plain
    provider: plain
    capabilities: [chat]
    context_window: 8000
    max_output_tokens: 1000
    pricing: { input_per_million: 1, output_per_million: 2 }
    fallbacks: [chat-claude]
  - id: chat-claude
    provider: claude
    capabilities: [chat, function_calling]
    context_window: 8000
    pricing: { input_per_million: 1, output_per_million: 2 }
    fallbacks: [chat-plain, chat-oai]
  - id: chat-oai
    provider: oai
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 1, output_per_million: 2 }
    fallbacks: [chat-claude, chat-plain]
  - id: embed
    provider: plain
    capabilities: [embeddings]
    dimensions: [256]
    context_window: 8000
    pricing: { input_per_million: 1, output_per_million: 0 }
limits: { default_rpm: 3, default_tpm: 10000, max_streams_per_key: 1 }
`;

function unreachable(): never {
  throw new Error('admission called an upstream');
}

/** An adapter whose calls all fail the test; `messages` and `responses` only where asked. */
export function fakeAdapter(type: string, speaks: { messages?: boolean; responses?: boolean } = {}): ProviderAdapter {
  const adapter: ProviderAdapter = { type, chat: unreachable, chatStream: unreachable, embeddings: unreachable };
  if (speaks.messages) adapter.messages = { create: unreachable, countTokens: unreachable };
  if (speaks.responses) adapter.responses = unreachable;
  return adapter;
}

export interface Harness {
  dependencies: AdmissionDependencies;
  config: Config;
  usage: MemoryUsageSink;
  clock: { now: number };
}

export function admissionHarness(): Harness {
  const config = parseConfigText(CATALOGUE_YAML, 'admission.yaml', {});
  const clock = { now: Date.parse('2026-03-01T08:00:00.000Z') };
  const now = () => clock.now;
  const adapters: Record<string, ProviderAdapter> = {
    plain: fakeAdapter('mock'),
    claude: fakeAdapter('anthropic', { messages: true }),
    oai: fakeAdapter('openai', { responses: true }),
  };
  const providers: ProviderRegistry = {
    get: (name) => adapters[name] ?? unreachable(),
    has: (name) => name in adapters,
  };
  const usage = new MemoryUsageSink();
  const dependencies: AdmissionDependencies = {
    config,
    catalogue: createCatalogue(config),
    providers,
    streams: createStreamLimiter(config.limits.maxStreamsPerKey),
    limiter: createKeyLimiter(createMemoryRateLimitStore({ now })),
    usage,
    limits: config.limits,
    metrics: createGatewayMetrics(),
    now,
    router: createRouting({ config, now }).router,
  };
  return { dependencies, config, usage, clock };
}

export function fakeKey(overrides: Partial<CachedApiKey> = {}): CachedApiKey {
  return {
    id: 'key_1',
    accountId: 'acct_1',
    name: 'test key',
    status: 'ACTIVE',
    blocked: false,
    rpm: null,
    tpm: null,
    models: null,
    accountModels: null,
    accountRpm: null,
    accountTpm: null,
    budget: null,
    accountBudget: null,
    expiresAt: null,
    graceEndsAt: null,
    ...overrides,
  };
}

/** A client connection whose close the test triggers. */
export function fakeClient(): ClientConnection & { close(): void } {
  const listeners = new Set<() => void>();
  return {
    onClose: (listener) => listeners.add(listener),
    offClose: (listener) => listeners.delete(listener),
    close: () => {
      for (const listener of [...listeners]) listener();
      listeners.clear();
    },
  };
}

export function newContext(requestId = 'req_1'): RequestContext {
  const context = new RequestContext();
  context.requestId = requestId;
  return context;
}
