import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisTurnTransaction } from '../redis/turn-transaction';
import { validateDelta, validateRequests } from './bucket-math';
import { validateWindows } from './memory-windows';
import type { BucketRequest, BucketState, HitResult, RateLimitStore, TakeResult, WindowRequest } from './types';

export interface RedisRateLimitStoreOptions {
  redis: Redis;
  /** Prepended to every bucket id, e.g. `mg:rl:`. */
  prefix: string;
  /**
   * When given, reservations (`take`) and settlements (`adjust`) go in the turn's batch script,
   * with the usage stream's XADD of the same calls (docs/usage-durability.md): one round trip
   * per event-loop turn for all of them (docs/performance.md).
   */
  transaction?: RedisTurnTransaction;
}

/*
 * The Lua scripts mirror bucket-math.ts (levels in units: one token = windowMs units, refill =
 * capacity units per ms; all integers). Redis runs a script atomically and `TIME` is the
 * clock, so every gateway instance sees one clock and one state: limits are shared exactly
 * (docs/rate-limits.md). A full bucket is deleted (absent = full); otherwise the hash
 * {tokens, ts} expires when it would be full again plus one window (~2 windows, longer
 * only while in debt, so a debt is not forgotten early).
 */
const LUA_PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function level_of(key, capacity, window)
  local full = capacity * window
  local stored = redis.call('HMGET', key, 'tokens', 'ts')
  if not stored[1] or not stored[2] then return full end
  local elapsed = now - tonumber(stored[2])
  if elapsed < 0 then elapsed = 0 end
  return math.min(full, tonumber(stored[1]) + elapsed * capacity)
end
local function store(key, level, capacity, window)
  local full = capacity * window
  if level >= full then
    redis.call('DEL', key)
    return 0
  end
  local reset = math.ceil((full - level) / capacity)
  redis.call('HSET', key, 'tokens', string.format('%.0f', level), 'ts', string.format('%.0f', now))
  redis.call('PEXPIRE', key, reset + window)
  return reset
end
`;

/** KEYS = buckets; ARGV = capacity, windowMs, cost per bucket. Reply: allowed, then remaining, resetMs, retryAfterMs per bucket. */
const TAKE_SCRIPT = `${LUA_PRELUDE}
local levels = {}
local allowed = 1
for i = 1, #KEYS do
  local capacity, window, cost = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  levels[i] = level_of(KEYS[i], capacity, window)
  if cost * window > levels[i] then allowed = 0 end
end
local reply = { allowed }
for i = 1, #KEYS do
  local capacity, window, cost = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1]), tonumber(ARGV[3 * i])
  local level = levels[i]
  local reset = math.ceil((capacity * window - level) / capacity)
  local retry = 0
  if allowed == 1 then
    level = level - cost * window
    reset = store(KEYS[i], level, capacity, window)
  elseif cost > capacity then
    retry = window
  else
    retry = math.max(0, math.ceil((cost * window - level) / capacity))
  end
  reply[#reply + 1] = math.floor(level / window)
  reply[#reply + 1] = reset
  reply[#reply + 1] = retry
end
return reply
`;

/** KEYS[1] = bucket; ARGV = capacity, windowMs, delta. */
const ADJUST_SCRIPT = `${LUA_PRELUDE}
local capacity, window, delta = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local level = math.min(capacity * window, level_of(KEYS[1], capacity, window) + delta * window)
store(KEYS[1], level, capacity, window)
return 1
`;

/*
 * Sliding windows (docs/rate-limits.md): one sorted set per window, a hit's member unique
 * (ARGV[1]) and scored by the Redis clock. In one script: drop the hits older than the
 * window, count, and add the hit to every window only if every window has room; so at most
 * `limit` hits land in any `windowMs`, across every instance.
 * KEYS = windows; ARGV = member, then limit, windowMs per window.
 * Reply: allowed, then remaining, retryAfterMs per window.
 */
const HIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member = ARGV[1]
local counts = {}
local allowed = 1
for i = 1, #KEYS do
  local limit, window = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  counts[i] = redis.call('ZCARD', KEYS[i])
  if counts[i] >= limit then allowed = 0 end
end
local reply = { allowed }
for i = 1, #KEYS do
  local limit, window = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local retry = 0
  if allowed == 1 then
    redis.call('ZADD', KEYS[i], now, member)
    redis.call('PEXPIRE', KEYS[i], window)
    counts[i] = counts[i] + 1
  elseif counts[i] >= limit then
    local leaving = redis.call('ZRANGE', KEYS[i], counts[i] - limit, counts[i] - limit, 'WITHSCORES')
    retry = math.max(1, tonumber(leaving[2]) + window - now)
  end
  reply[#reply + 1] = math.max(0, limit - counts[i])
  reply[#reply + 1] = retry
end
return reply
`;

const HIT_COMMAND = 'modelGatewayRateLimitHit';
const TAKE_COMMAND = 'modelGatewayRateLimitTake';
const ADJUST_COMMAND = 'modelGatewayRateLimitAdjust';

/** The commands `defineCommand` adds (sent as EVALSHA, falling back to EVAL after a script flush). */
interface RateLimitCommands {
  [HIT_COMMAND](numberOfKeys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
  [TAKE_COMMAND](numberOfKeys: number, ...keysAndArgs: Array<string | number>): Promise<unknown>;
  [ADJUST_COMMAND](key: string, capacity: number, windowMs: number, delta: number): Promise<unknown>;
}

function parseTakeReply(reply: unknown, requests: BucketRequest[]): TakeResult {
  if (!Array.isArray(reply) || reply.length !== 1 + 3 * requests.length || !reply.every((value) => typeof value === 'number')) {
    throw new Error('rate limit: unexpected reply from the Redis take script');
  }
  const numbers: number[] = reply;
  const buckets: BucketState[] = requests.map((request, index) => ({
    limit: request.capacity,
    remaining: numbers[1 + 3 * index] ?? 0,
    resetMs: numbers[2 + 3 * index] ?? 0,
    retryAfterMs: numbers[3 + 3 * index] ?? 0,
  }));
  return { allowed: numbers[0] === 1, buckets };
}

function parseHitReply(reply: unknown, windows: WindowRequest[]): HitResult {
  if (!Array.isArray(reply) || reply.length !== 1 + 2 * windows.length || !reply.every((value) => typeof value === 'number')) {
    throw new Error('rate limit: unexpected reply from the Redis window script');
  }
  const numbers: number[] = reply;
  return {
    allowed: numbers[0] === 1,
    windows: windows.map((window, index) => ({
      limit: window.limit,
      remaining: numbers[1 + 2 * index] ?? 0,
      retryAfterMs: numbers[2 + 2 * index] ?? 0,
    })),
  };
}

/**
 * The shared store: ONE script call per `take` or `adjust`, no read-then-write in JS, so it
 * is exact under concurrency across instances. Assumes a single Redis (or a primary), not
 * Redis Cluster: the buckets of one take would have to share a hash slot. Needs Redis >= 5
 * (effects replication, so `TIME` before a write is allowed).
 * The client is the caller's: `close()` does not quit it.
 */
export function createRedisRateLimitStore(options: RedisRateLimitStoreOptions): RateLimitStore {
  const { prefix } = options;
  options.redis.defineCommand(TAKE_COMMAND, { lua: TAKE_SCRIPT });
  options.redis.defineCommand(HIT_COMMAND, { lua: HIT_SCRIPT });
  options.redis.defineCommand(ADJUST_COMMAND, { lua: ADJUST_SCRIPT, numberOfKeys: 1 });
  // defineCommand adds methods the ioredis types cannot know about.
  const redis = options.redis as Redis & RateLimitCommands;
  const { transaction } = options;
  transaction?.defineScript(TAKE_COMMAND, TAKE_SCRIPT);
  transaction?.defineScript(ADJUST_COMMAND, ADJUST_SCRIPT);

  return {
    async take(requests) {
      validateRequests(requests);
      if (requests.length === 0) return { allowed: true, buckets: [] };
      const keys = requests.map((request) => prefix + request.id);
      const args: number[] = [];
      for (const request of requests) args.push(request.capacity, request.windowMs, request.cost);
      const reply = transaction
        ? await transaction.script(TAKE_COMMAND, keys, args)
        : await redis[TAKE_COMMAND](requests.length, ...keys, ...args);
      return parseTakeReply(reply, requests);
    },
    async hit(windows) {
      validateWindows(windows);
      if (windows.length === 0) return { allowed: true, windows: [] };
      const keys = windows.map((window) => `${prefix}window:${window.id}`);
      const args = windows.flatMap((window) => [window.limit, window.windowMs]);
      return parseHitReply(await redis[HIT_COMMAND](windows.length, ...keys, randomUUID(), ...args), windows);
    },
    async adjust(bucket, delta) {
      validateDelta(bucket, delta);
      const key = prefix + bucket.id;
      if (!transaction) {
        await redis[ADJUST_COMMAND](key, bucket.capacity, bucket.windowMs, delta);
        return;
      }
      // A settlement may wait for the next turn that writes (server/redis/turn-transaction.ts).
      await transaction.script(ADJUST_COMMAND, [key], [bucket.capacity, bucket.windowMs, delta], true);
    },
    async close() {},
  };
}
