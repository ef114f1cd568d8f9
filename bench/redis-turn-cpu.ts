import { Redis } from 'ioredis';
import { createRedisRateLimitStore } from '../server/rate-limit/redis-store';
import { RedisTurnTransaction } from '../server/redis/turn-transaction';

/**
 * The gateway's own CPU for a chat request's Redis calls (the rate limits' take and adjust)
 * through the turn transaction, in one process, without HTTP (docs/performance.md, "Redis and
 * Postgres per request"). Usage: `npx tsx bench/redis-turn-cpu.ts [REQUESTS_PER_TURN] [TURNS]`,
 * BENCH_REDIS_URL a Redis database of its own. Its buckets live under the prefix
 * `bench-redis-turn:` and expire within two minutes.
 */
const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 0 });
const store = createRedisRateLimitStore({ redis, prefix: 'bench-redis-turn:', transaction: new RedisTurnTransaction(redis) });
const perTurn = Number(process.argv[2] ?? 20);
const turns = Number(process.argv[3] ?? 2_000);
const WINDOW_MS = 60_000;

/** One turn: `perTurn` requests' takes and the settlements of as many earlier requests. */
async function turn(index: number): Promise<void> {
  const calls: Promise<unknown>[] = [];
  for (let key = 0; key < perTurn; key += 1) {
    const requests = { id: `key:k${key}:requests:10000000`, capacity: 10_000_000, windowMs: WINDOW_MS, cost: 1 };
    const tokens = { id: `key:k${key}:tokens:1000000000`, capacity: 1_000_000_000, windowMs: WINDOW_MS };
    calls.push(store.take([requests, { ...tokens, cost: 100 }]));
    calls.push(store.adjust(tokens, 40 + (index % 3)));
  }
  await Promise.all(calls);
}

for (let index = 0; index < 300; index += 1) await turn(index);
for (let pass = 0; pass < 3; pass += 1) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < turns; index += 1) await turn(index);
  const used = process.cpuUsage(cpu);
  const requests = turns * perTurn;
  const micros = (value: number) => (value / requests).toFixed(2);
  console.log(
    `${perTurn} requests a turn: ${micros(used.user + used.system)} µs CPU a request (take + adjust), ` +
      `wall ${micros((performance.now() - started) * 1000)} µs`,
  );
}
await redis.quit();
