import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import supertest from 'supertest';
import type { UsageReport } from '../../contract';
import { parseConfigText, type Config } from '../../server/config/load-config';
import { createStore } from '../../server/db/create-store';
import { migrate } from '../../server/db/migrate';
import type { Store } from '../../server/db/types';
import { createGateway, type Gateway, type GatewayOptions } from '../../server/gateway';
import { createHttpServer } from '../../server/http-server';
import { createSqliteDatabase, createPostgresDatabase, type TestDatabase } from '../db/databases';

/**
 * A gateway for HTTP-level tests: `createApp` through `createGateway`, on a fresh database.
 * `npm test` runs on SQLite and the in-memory rate limiter; with GATEWAY_TEST_DB=postgres
 * (CI's second pass) every gateway gets a fresh Postgres database, and with
 * GATEWAY_TEST_REDIS_URL the Redis rate limiter.
 */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export const BASE_TEST_CONFIG = `
upstream:
  connect_timeout_ms: 1000
  first_byte_timeout_ms: 2000
  idle_timeout_ms: 2000
  max_retries: 1
  retry_base_delay_ms: 1
providers:
  mock: { type: mock }
models:
  - id: mock-chat
    provider: mock
    owned_by: mock
    capabilities: [chat, code, function_calling, json_mode, vision]
    context_window: 32000
    pricing: { input_per_million: 1.5, output_per_million: 2.25 }
  - id: mock-text
    provider: mock
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 0.0375, output_per_million: 0.15 }
  - id: mock-embed
    provider: mock
    capabilities: [embeddings]
    dimensions: [256, 1536]
    context_window: 8191
    pricing: { input_per_million: 0.02, output_per_million: 0 }
`;

/**
 * BASE_TEST_CONFIG plus a model `slow-chat` on a second mock provider `slow` whose `mockOptions`
 * (a YAML flow mapping: latency_ms, chunk_delay_ms, chunks) make its replies slow; `extraYaml`
 * (top-level keys such as `limits`) is appended.
 */
export function slowChatConfig(mockOptions: string, extraYaml = ''): string {
  return BASE_TEST_CONFIG.replace('mock: { type: mock }', `mock: { type: mock }\n  slow: { type: mock, options: ${mockOptions} }`).concat(`
  - id: slow-chat
    provider: slow
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 1, output_per_million: 2 }
${extraYaml}`);
}

/**
 * A config of one mock provider and one chat model on it, `mock-chat` (8,000-token context,
 * 1.5 / 2.25 USD per million tokens unless `pricing` says otherwise): `mockOptions` is the
 * provider's options (a YAML flow mapping: latency_ms, chunk_delay_ms, chunks), `sections` the
 * top-level sections around it (limits, usage, …), one per line.
 */
export function mockChatConfig(options: { mockOptions?: string; sections?: string[]; pricing?: string } = {}): string {
  const provider = options.mockOptions === undefined ? '{ type: mock }' : `{ type: mock, options: ${options.mockOptions} }`;
  return `
providers:
  mock: ${provider}
${(options.sections ?? []).map((section) => `${section}\n`).join('')}models:
  - id: mock-chat
    provider: mock
    capabilities: [chat]
    context_window: 8000
    pricing: ${options.pricing ?? '{ input_per_million: 1.5, output_per_million: 2.25 }'}
`;
}

export interface TestGatewayOptions extends GatewayOptions {
  /** Whole YAML config; defaults to BASE_TEST_CONFIG. */
  configYaml?: string;
  env?: Record<string, string>;
  /** Share a database with another test gateway (two instances). */
  databaseUrl?: string;
}

export interface TestGateway {
  gateway: Gateway;
  config: Config;
  store: Store;
  http: supertest.Agent;
  /** Base address of a listening server (for the openai client), without /v1. */
  baseUrl: string;
  databaseUrl: string;
  admin(): { authorization: string };
  createAccount(name?: string): Promise<string>;
  createKey(accountId: string, options?: { name?: string; rpm?: number; tpm?: number }): Promise<{ id: string; key: string }>;
  /** POST a key with `body`'s fields (`name` among them), expecting 201 (the reply's body in the failure). */
  createKeyWith(accountId: string, body: Record<string, unknown>): Promise<{ id: string; key: string }>;
  createUsageKey(accountId: string): Promise<string>;
  /** The requests in the usage report `usageKey` reads (every key of its account, the default range). */
  reportedRequests(usageKey: string): Promise<number>;
  /** POST /v1/chat/completions with `key`: "hi" to mock-chat with max_tokens 5, `body`'s fields over those. */
  chat(key: string, body?: Record<string, unknown>): supertest.Test;
  close(): Promise<void>;
}

export function testDialect(): 'sqlite' | 'postgres' {
  return process.env.GATEWAY_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

export async function createTestDatabase(): Promise<TestDatabase> {
  return testDialect() === 'postgres' ? createPostgresDatabase() : createSqliteDatabase();
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const database = options.databaseUrl ? null : await createTestDatabase();
  const databaseUrl = options.databaseUrl ?? (database as TestDatabase).url;
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    GATEWAY_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    ...(process.env.GATEWAY_TEST_REDIS_URL ? { REDIS_URL: process.env.GATEWAY_TEST_REDIS_URL } : {}),
    ...options.env,
  };
  const config = parseConfigText(options.configYaml ?? BASE_TEST_CONFIG, 'test-config.yaml', env);
  await migrate(databaseUrl);
  const store = options.store ?? (await createStore(databaseUrl));
  const gateway = await createGateway(config, {
    logger: pino({ level: 'silent' }),
    // Test files run in parallel on one Redis: each gateway gets its own buckets, unless a
    // test shares a prefix on purpose (two instances of one deployment).
    rateLimitPrefix: `mg:test:${randomBytes(6).toString('hex')}:`,
    ...options,
    store,
  });
  // The server `serve` runs, with its timeouts against slow clients; without the idle
  // collector, whose full collections of the whole test process would only slow the tests
  // (test/memory/idle-collector.test.ts tests it).
  const server: Server = createHttpServer(gateway.app, { ...config.server, idleGc: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = supertest.agent(server);
  const admin = () => ({ authorization: `Bearer ${TEST_ADMIN_TOKEN}` });

  return {
    gateway,
    config,
    store,
    http,
    baseUrl,
    databaseUrl,
    admin,
    async createAccount(name = `account-${randomBytes(3).toString('hex')}`) {
      const response = await http.post('/v1/admin/accounts').set(admin()).send({ name }).expect(201);
      return (response.body as { id: string }).id;
    },
    async createKey(accountId, keyOptions = {}) {
      const response = await http
        .post(`/v1/admin/accounts/${accountId}/keys`)
        .set(admin())
        .send({ name: keyOptions.name ?? 'test key', rpm: keyOptions.rpm, tpm: keyOptions.tpm })
        .expect(201);
      const body = response.body as { id: string; key: string };
      return { id: body.id, key: body.key };
    },
    async createKeyWith(accountId, body) {
      const response = await http.post(`/v1/admin/accounts/${accountId}/keys`).set(admin()).send(body);
      if (response.status !== 201) throw new Error(`POST a key: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body as { id: string; key: string };
    },
    async createUsageKey(accountId) {
      const response = await http.post(`/v1/admin/accounts/${accountId}/usage-key`).set(admin()).expect(201);
      return (response.body as { key: string }).key;
    },
    async reportedRequests(usageKey) {
      const response = await http.get('/v1/usage/keys').set('authorization', `Bearer ${usageKey}`).expect(200);
      return (response.body as UsageReport).keys.reduce((sum, key) => sum + key.total.requests, 0);
    },
    chat(key, body = {}) {
      return http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, ...body });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gateway.close({ drainTimeoutMs: 2_000 });
      if (!options.store) await store.close();
      await database?.drop();
    },
  };
}
