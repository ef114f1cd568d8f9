import type { Redis } from 'ioredis';
import type { RedisTurnTransaction } from '../redis/turn-transaction';
import type { BudgetStore } from './budget-store';

/*
 * Redis numbers are doubles in Lua: exact only up to 2^53. A femto-USD amount is kept as two
 * fields, whole nano-dollars (`n`, exact up to ~9 million USD) and the femto remainder (`f`,
 * 0..999,999), for the total (`tn`, `tf`) and the settled spend (`sn`, `sf`). Scripts run
 * atomically, so every instance sees one counter (docs/operator-controls.md, spend budgets).
 */
const LUA_ADD = `
local function add(n, f, dn, df)
  n = n + dn
  f = f + df
  if f >= 1000000 then
    f = f - 1000000
    n = n + 1
  end
  return n, f
end
local function text(x) return string.format('%.0f', x) end
`;

/** KEYS = counters; ARGV per counter: amount n, f, cost n, f, seed n ('' = none), f, ttl ms. */
const RESERVE_SCRIPT = `${LUA_ADD}
for i = 1, #KEYS do
  local b = 7 * (i - 1)
  if redis.call('EXISTS', KEYS[i]) == 0 then
    if ARGV[b + 5] == '' then return { -1 } end
    redis.call('HSET', KEYS[i], 'tn', ARGV[b + 5], 'tf', ARGV[b + 6], 'sn', ARGV[b + 5], 'sf', ARGV[b + 6])
  end
end
local allowed = 1
local totals = {}
for i = 1, #KEYS do
  local b = 7 * (i - 1)
  local stored = redis.call('HMGET', KEYS[i], 'tn', 'tf')
  local n, f = tonumber(stored[1]), tonumber(stored[2])
  totals[i] = { n, f }
  local after_n, after_f = add(n, f, tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4]))
  local amount_n, amount_f = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2])
  if after_n > amount_n or (after_n == amount_n and after_f > amount_f) then allowed = 0 end
end
local reply = { allowed }
for i = 1, #KEYS do
  local b = 7 * (i - 1)
  local n, f = totals[i][1], totals[i][2]
  if allowed == 1 then
    n, f = add(n, f, tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4]))
    redis.call('HSET', KEYS[i], 'tn', text(n), 'tf', text(f))
  end
  redis.call('PEXPIRE', KEYS[i], ARGV[b + 7])
  reply[#reply + 1] = text(n)
  reply[#reply + 1] = text(f)
end
return reply
`;

/** KEYS[1] = counter; ARGV = delta n, f, settled n, f. Reply: settled n, f, or nothing when absent. */
const SETTLE_SCRIPT = `${LUA_ADD}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local stored = redis.call('HMGET', KEYS[1], 'tn', 'tf', 'sn', 'sf')
local tn, tf = add(tonumber(stored[1]), tonumber(stored[2]), tonumber(ARGV[1]), tonumber(ARGV[2]))
local sn, sf = add(tonumber(stored[3]), tonumber(stored[4]), tonumber(ARGV[3]), tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], 'tn', text(tn), 'tf', text(tf), 'sn', text(sn), 'sf', text(sf))
return { text(sn), text(sf) }
`;

const FEMTO_PER_NANO = 1_000_000n;

/** A femto-USD amount as (nano, remainder) with the remainder in 0..999,999, also for negatives. */
function split(femto: bigint): [string, string] {
  let nano = femto / FEMTO_PER_NANO;
  let rest = femto % FEMTO_PER_NANO;
  if (rest < 0n) {
    rest += FEMTO_PER_NANO;
    nano -= 1n;
  }
  return [nano.toString(), rest.toString()];
}

const join = (nano: unknown, rest: unknown): bigint => BigInt(String(nano)) * FEMTO_PER_NANO + BigInt(String(rest));

const RESERVE_COMMAND = 'modelGatewayBudgetReserve';
const SETTLE_COMMAND = 'modelGatewayBudgetSettle';

/** The commands `defineCommand` adds (sent as EVALSHA). */
interface BudgetCommands {
  [RESERVE_COMMAND](numberOfKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  [SETTLE_COMMAND](numberOfKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
}

export interface RedisBudgetStoreOptions {
  redis: Redis;
  prefix: string;
  /** When given, reservations and settlements go in the turn's batch script (server/redis/turn-transaction.ts). */
  transaction?: RedisTurnTransaction;
}

export function createRedisBudgetStore(options: RedisBudgetStoreOptions): BudgetStore {
  const { prefix, transaction } = options;
  options.redis.defineCommand(RESERVE_COMMAND, { lua: RESERVE_SCRIPT });
  options.redis.defineCommand(SETTLE_COMMAND, { lua: SETTLE_SCRIPT });
  // defineCommand adds methods the ioredis types cannot know about.
  const redis = options.redis as Redis & BudgetCommands;
  transaction?.defineScript(RESERVE_COMMAND, RESERVE_SCRIPT);
  transaction?.defineScript(SETTLE_COMMAND, SETTLE_SCRIPT);
  // In the turn's batch script; a settlement may wait for the next turn that writes (server/redis/turn-transaction.ts).
  const run = (command: typeof RESERVE_COMMAND | typeof SETTLE_COMMAND, keysAndArgs: string[], keyCount: number): Promise<unknown> =>
    transaction
      ? transaction.script(command, keysAndArgs.slice(0, keyCount), keysAndArgs.slice(keyCount), command === SETTLE_COMMAND)
      : redis[command](keyCount, ...keysAndArgs);
  return {
    async reserve(requests) {
      const args: string[] = [];
      for (const request of requests) {
        const seed = request.seed === undefined ? ['', ''] : split(request.seed);
        args.push(...split(request.amount), ...split(request.cost), ...seed, String(Math.max(1, Math.ceil(request.ttlMs))));
      }
      const keys = requests.map((request) => `${prefix}${request.id}`);
      const reply = (await run(RESERVE_COMMAND, [...keys, ...args], keys.length)) as Array<number | string>;
      if (reply[0] === -1) return { kind: 'unseeded' };
      const totals = requests.map((_request, index) => join(reply[1 + 2 * index], reply[2 + 2 * index]));
      return { kind: reply[0] === 1 ? 'reserved' : 'refused', totals };
    },
    async settle(id, delta, settled) {
      const reply = (await run(SETTLE_COMMAND, [`${prefix}${id}`, ...split(delta), ...split(settled)], 1)) as Array<string> | null;
      return reply === null ? null : join(reply[0], reply[1]);
    },
    async firstTime(id, ttlMs) {
      return (await options.redis.set(`${prefix}${id}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK';
    },
    async close() {
      // The client is the caller's.
    },
  };
}
