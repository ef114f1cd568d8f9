import { gaxios } from 'google-auth-library';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createHttpClient } from '../../../server/providers/http-client';
import type { ModelTarget, ProviderAdapter } from '../../../server/providers/types';
import { createGoogleAccessTokens, createVertexAdapter, type GoogleAccessTokens } from '../../../server/providers/vertex';
import { startMockVertexUpstream, type MockVertexUpstream } from '../../helpers/mock-vertex-upstream';

/**
 * The Vertex adapter on the mock Vertex AI (test/helpers/mock-vertex-upstream.ts) through the
 * real pooled HTTP client, with a fixed clock and numbered ids. Google's auth library signs
 * the mock service account's assertions; its HTTP client sends the one request it addresses
 * to Google's token endpoint to the mock's instead (Google's library takes the endpoint from
 * no credential file of a service account).
 */

export const TEST_NOW_MS = 1_767_225_600_123;
export const PROJECT = 'mock-project';
export const GEMINI_TARGET: ModelTarget = { id: 'flash', upstreamModel: 'gemini-2.5-flash', defaultMaxTokens: 1024 };
export const CLAUDE_TARGET: ModelTarget = { id: 'sonnet', upstreamModel: 'claude-sonnet-4@20250514', defaultMaxTokens: 1024 };

const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** The auth library's HTTP client, with Google's token endpoint answered by the mock. */
export function tokenTransporter(upstream: MockVertexUpstream): gaxios.Gaxios {
  const transporter = new gaxios.Gaxios();
  transporter.interceptors.request.add({
    resolved: async (config) => (String(config.url) === GOOGLE_TOKEN_URL ? { ...config, url: new URL(upstream.tokenUrl) } : config),
  });
  return transporter;
}

export interface VertexTestAdapter {
  adapter: ProviderAdapter;
  tokens: GoogleAccessTokens;
  close(): Promise<void>;
}

export function createVertexTestAdapter(
  upstream: MockVertexUpstream,
  publisher: 'google' | 'anthropic',
  credentials: { credentialsFile?: string } = { credentialsFile: upstream.serviceAccountFile },
): VertexTestAdapter {
  const http = createHttpClient({ connectTimeoutMs: 2_000, firstByteTimeoutMs: 5_000, idleTimeoutMs: 5_000, keepAliveMs: 20_000 });
  let counter = 0;
  const tokens = createGoogleAccessTokens({
    provider: 'vertex',
    credentialsFile: credentials.credentialsFile,
    transporter: tokenTransporter(upstream),
  });
  const adapter = createVertexAdapter(
    {
      name: 'vertex',
      baseUrl: upstream.baseUrl,
      apiKey: '',
      http,
      now: () => TEST_NOW_MS,
      generateId: () => `id${++counter}`,
      options: { project: PROJECT, region: 'us-east5', publisher },
    },
    tokens,
  );
  return { adapter, tokens, close: () => http.close() };
}

/** For the enclosing describe: the mock and an adapter of the publisher on it, closed after it; each test starts with no requests recorded. */
export function useVertexTestAdapter(publisher: 'google' | 'anthropic'): { upstream: MockVertexUpstream; vertex: VertexTestAdapter } {
  const fixture = { upstream: {} as MockVertexUpstream, vertex: {} as VertexTestAdapter };
  beforeAll(async () => {
    fixture.upstream = await startMockVertexUpstream();
    fixture.vertex = createVertexTestAdapter(fixture.upstream, publisher);
  });
  beforeEach(() => {
    fixture.upstream.requests.length = 0;
  });
  afterAll(async () => {
    await fixture.vertex.close?.();
    await fixture.upstream.close?.();
  });
  return fixture;
}

export function modelPath(publisher: 'google' | 'anthropic', model: string, method: string): string {
  return `/v1/projects/${PROJECT}/locations/us-east5/publishers/${publisher}/models/${model}:${method}`;
}
