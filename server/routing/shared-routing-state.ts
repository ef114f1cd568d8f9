import { Redis } from 'ioredis';
import { z } from 'zod';
import { decodeMessage } from '../redis/decode-message';
import type { DeploymentHealth } from './deployment-health';
import type { SessionBindings } from './session-affinity';

/**
 * The routing state several instances share through Redis (docs/routing.md, "Several
 * instances"): cooldowns, disables and session bindings. Each instance reads only its memory
 * on the request path; a change made by one is published on a channel and applied by the
 * others, and the cooldowns are also kept in a hash (the later deadline wins, in one script) so
 * that an instance that starts or reconnects reads the current ones. Pub/sub is
 * fire-and-forget: a message missed during an outage costs one more failed call on that
 * instance, whose own failure then cools the deployment there too.
 */

const text = z.string().min(1).max(1_000);
const count = z.number().finite().nonnegative();
const RoutingEventSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('cooled'), id: text, until: count }),
  z.object({ kind: z.literal('healed'), id: text }),
  z.object({ kind: z.literal('enabled'), id: text, enabled: z.boolean() }),
  z.object({ kind: z.literal('bound'), scope: text, id: text, ttlMs: count }),
]);
export type RoutingEvent = z.infer<typeof RoutingEventSchema>;

/** Never throws: a malformed message (another version, another tool) is ignored. */
export function decodeRoutingEvent(message: string): RoutingEvent | null {
  return decodeMessage(RoutingEventSchema, message);
}

/** Sets a cooldown's deadline only when it is later than the stored one (a failure never shortens a cooldown). */
const EXTEND_COOLDOWN = `
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local proposed = tonumber(ARGV[2])
if proposed > current then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('PUBLISH', KEYS[2], ARGV[3])
end
return 1`;

/** The channel of the routing events under a key prefix. */
export function routingChannel(prefix: string): string {
  return `${prefix}routing`;
}

/** The hash of the cooldowns (deployment id → epoch ms it ends) under a key prefix. */
function cooldownsKey(prefix: string): string {
  return `${prefix}routing:cooldowns`;
}

/** The cooldowns stored in Redis, applied to `health` (those still running at `now`). */
async function applyStoredCooldowns(redis: Redis, prefix: string, health: DeploymentHealth, now: number): Promise<void> {
  const stored = await redis.hgetall(cooldownsKey(prefix));
  for (const [id, text] of Object.entries(stored)) {
    const until = Number(text);
    if (until > now) health.applyCooldown(id, until);
  }
}

/** A short-lived connection for the CLI: no retries, no queue, gone when done. */
function oneShotRedis(redisUrl: string): Redis {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  return redis;
}

/** For the CLI: the running servers' shared cooldowns, applied to `health`. Rejects when Redis cannot answer. */
export async function loadCooldownsOnce(redisUrl: string, prefix: string, health: DeploymentHealth): Promise<void> {
  const redis = oneShotRedis(redisUrl);
  try {
    await redis.connect();
    await applyStoredCooldowns(redis, prefix, health, health.now());
  } finally {
    redis.disconnect();
  }
}

/** For the CLI: one short-lived connection, one operator's enable or disable. Rejects when Redis cannot take it. */
export async function publishEnabledOnce(redisUrl: string, prefix: string, id: string, enabled: boolean): Promise<void> {
  const redis = oneShotRedis(redisUrl);
  try {
    await redis.connect();
    await redis.publish(routingChannel(prefix), JSON.stringify({ kind: 'enabled', id, enabled } satisfies RoutingEvent));
  } finally {
    redis.disconnect();
  }
}

export interface SharedRoutingOptions {
  redis: Redis;
  redisUrl: string;
  /** Prefix of the channel and the hash (one per deployment of the gateway). */
  prefix: string;
  health: DeploymentHealth;
  bindings: SessionBindings;
  now: () => number;
  onError: (error: unknown) => void;
}

export class SharedRoutingState {
  private readonly channel: string;
  private readonly cooldownsKey: string;
  private readonly subscriber: Redis;

  constructor(private readonly options: SharedRoutingOptions) {
    this.channel = routingChannel(options.prefix);
    this.cooldownsKey = cooldownsKey(options.prefix);
    const { health, bindings } = options;
    health.broadcast = {
      cooled: (id, until) =>
        this.run(
          options.redis.eval(
            EXTEND_COOLDOWN,
            2,
            this.cooldownsKey,
            this.channel,
            id,
            String(until),
            this.encode({ kind: 'cooled', id, until }),
          ),
        ),
      healed: (id) => this.run(options.redis.hdel(this.cooldownsKey, id).then(() => this.publish({ kind: 'healed', id }))),
    };
    bindings.broadcast = { bound: (scope, id, ttlMs) => this.publish({ kind: 'bound', scope, id, ttlMs }) };
    this.subscriber = new Redis(options.redisUrl, {
      lazyConnect: false,
      maxRetriesPerRequest: null,
      autoResubscribe: true,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    let lastError = 0;
    this.subscriber.on('error', (error) => {
      const now = Date.now();
      if (now - lastError > 10_000) options.onError(error);
      lastError = now;
    });
    // On every (re)connection: the cooldowns stored meanwhile.
    this.subscriber.on('ready', () => void this.loadCooldowns());
    this.subscriber.on('message', (receivedOn: string, message: string) => {
      if (receivedOn !== this.channel) return;
      const event = decodeRoutingEvent(message);
      if (event) this.apply(event);
    });
    this.subscriber.subscribe(this.channel).catch((error: unknown) => options.onError(error));
  }

  /** An operator's enable or disable, after its database write: every instance applies it at once. */
  publishEnabled(id: string, enabled: boolean): Promise<void> {
    return this.options.redis.publish(this.channel, this.encode({ kind: 'enabled', id, enabled })).then(() => undefined);
  }

  close(): void {
    this.subscriber.disconnect();
  }

  private apply(event: RoutingEvent): void {
    const { health, bindings } = this.options;
    if (event.kind === 'cooled') health.applyCooldown(event.id, event.until);
    else if (event.kind === 'healed') health.applyHealed(event.id);
    else if (event.kind === 'enabled') health.setDisabled(event.id, !event.enabled);
    else bindings.apply(event.scope, event.id, event.ttlMs);
  }

  private async loadCooldowns(): Promise<void> {
    try {
      await applyStoredCooldowns(this.options.redis, this.options.prefix, this.options.health, this.options.now());
    } catch (error) {
      this.options.onError(error);
    }
  }

  private publish(event: RoutingEvent): void {
    this.run(this.options.redis.publish(this.channel, this.encode(event)));
  }

  private encode(event: RoutingEvent): string {
    return JSON.stringify(event);
  }

  private run(work: Promise<unknown>): void {
    work.catch((error: unknown) => this.options.onError(error));
  }
}
