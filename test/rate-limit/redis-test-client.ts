import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * CI runs a Redis; a developer without one gets the Redis tests skipped, with a message saying
 * so. The URL the suite's gateways are given (GATEWAY_TEST_REDIS_URL, README "Development")
 * first, so that one variable points every test at the same Redis database.
 */
export const redisUrl = process.env.GATEWAY_TEST_REDIS_URL || process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** A client that fails fast instead of queueing or reconnecting forever. */
export function createTestRedis(url = redisUrl): Redis {
  return new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
}

export async function isRedisReachable(): Promise<boolean> {
  const probe = createTestRedis();
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    console.warn(
      `[rate-limit tests] Redis at ${redisUrl} is unreachable: skipping the Redis store tests (set REDIS_URL to point elsewhere).`,
    );
    return false;
  } finally {
    probe.disconnect();
  }
}

/** A key prefix of its own per test run, so parallel runs and leftovers never collide. */
export const uniquePrefix = (): string => `test:rate-limit:${randomUUID()}:`;

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
}
