import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createHttpClient } from '../../server/providers/http-client';
import type { CallOptions, ProviderAdapter, ProviderFactoryOptions } from '../../server/providers/types';
export { collectAll as collect } from '../helpers/collect-all';

/**
 * The one set-up of the provider adapter tests: a mock upstream of the provider's wire format
 * (test/helpers/mock-*-upstream.ts), the adapter under test on the real pooled HTTP client, a
 * fixed clock and numbered ids, so replies are reproducible.
 */

export interface AdapterOptions {
  create: (options: ProviderFactoryOptions) => ProviderAdapter;
  name: string;
  apiKey: string;
  now: number;
  /** Prefix of the generated ids (`id1`, `id2`, …). */
  idPrefix?: string;
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
}

export interface TestAdapter {
  adapter: ProviderAdapter;
  /** The same provider without a key (local servers). */
  keyless: ProviderAdapter;
  /** Closes the HTTP client (not the upstream). */
  close(): Promise<void>;
}

/** The adapter under test, pointed at `upstream` through the real pooled HTTP client. */
export function createTestAdapter(upstream: { baseUrl: string }, options: AdapterOptions): TestAdapter {
  const http = createHttpClient({
    connectTimeoutMs: 2_000,
    firstByteTimeoutMs: options.firstByteTimeoutMs ?? 5_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 5_000,
    keepAliveMs: 20_000,
  });
  let counter = 0;
  const base = {
    name: options.name,
    baseUrl: `${upstream.baseUrl}/`,
    http,
    now: () => options.now,
    generateId: () => `${options.idPrefix ?? 'id'}${++counter}`,
  };
  return {
    adapter: options.create({ ...base, apiKey: options.apiKey }),
    keyless: options.create({ ...base, apiKey: '' }),
    close: () => http.close(),
  };
}

export interface ProviderHarness<Upstream> extends TestAdapter {
  upstream: Upstream;
}

/** A fresh mock upstream and the adapter on it; `close` closes both. */
export async function createProviderHarness<Upstream extends { baseUrl: string; close(): Promise<void> }>(
  start: () => Promise<Upstream>,
  options: AdapterOptions,
): Promise<ProviderHarness<Upstream>> {
  const upstream = await start();
  const adapter = createTestAdapter(upstream, options);
  return {
    ...adapter,
    upstream,
    close: async () => {
      await adapter.close();
      await upstream.close();
    },
  };
}

/**
 * For the enclosing describe: one harness made by `create`, closed after it; each test starts
 * with no upstream requests recorded. The object is filled in beforeAll.
 */
export function useSharedHarness<Harness extends { upstream: { requests: unknown[] }; close(): Promise<void> }>(
  create: () => Promise<Harness>,
): Harness {
  const harness = {} as Harness;
  beforeAll(async () => {
    Object.assign(harness, await create());
  });
  beforeEach(() => {
    harness.upstream.requests.length = 0;
  });
  afterAll(async () => {
    await harness.close();
  });
  return harness;
}

export function callOptions(signal: AbortSignal = new AbortController().signal, requestId = 'req-test'): CallOptions {
  return { signal, requestId };
}

/** Runs `promise` and returns what it rejected with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected a rejection.');
}
