// Shared by the tests of two gateway instances on one Postgres and one Redis
// (two-instances.test.ts, budgets-two-instances.test.ts).
import { afterAll, beforeAll } from 'vitest';
import { createPostgresDatabase, isPostgresAvailable, type TestDatabase } from '../db/databases';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/test-gateway';
import { isRedisReachable, redisUrl } from '../rate-limit/redis-test-client';

/** Whether Postgres (TEST_POSTGRES_URL) and Redis (REDIS_URL) both answer; without them, warns that `skipped` is skipped. */
export async function postgresAndRedisAvailable(skipped: string): Promise<boolean> {
  const available = (await isPostgresAvailable()) && (await isRedisReachable());
  if (!available) console.warn(`[scale] Postgres or Redis unreachable: skipping ${skipped} (CI provides both).`);
  return available;
}

/** One mock chat model, and limits high enough that only a test's own key limits refuse. */
export const TWO_GATEWAYS_CONFIG = `
providers:
  mock: { type: mock }
limits: { default_rpm: 100000, default_tpm: 100000000, usage_key_rpm: 1000, usage_ip_rpm: 1000 }
models:
  - id: mock-chat
    provider: mock
    capabilities: [chat]
    context_window: 32000
    pricing: { input_per_million: 1.5, output_per_million: 2.25 }
`;

/**
 * For the enclosing describe: one deployment of two gateways, `a` and `b`, with TWO_GATEWAYS_CONFIG
 * on one fresh Postgres database, one Redis and one bucket namespace (`options.rateLimitPrefix`);
 * closed, and the database dropped, after it. Read the fields inside tests (they exist from beforeAll on).
 */
export function useTwoGateways(options: Pick<TestGatewayOptions, 'rateLimitPrefix' | 'now' | 'keyRefreshIntervalMs'>) {
  const fixture = {
    database: undefined as unknown as TestDatabase,
    a: undefined as unknown as TestGateway,
    b: undefined as unknown as TestGateway,
  };
  beforeAll(async () => {
    fixture.database = await createPostgresDatabase();
    const shared = { configYaml: TWO_GATEWAYS_CONFIG, databaseUrl: fixture.database.url, env: { REDIS_URL: redisUrl }, ...options };
    fixture.a = await startTestGateway(shared);
    fixture.b = await startTestGateway(shared);
  });
  afterAll(async () => {
    await fixture.a?.close();
    await fixture.b?.close();
    await fixture.database?.drop();
  });
  return fixture;
}
