import { Redis } from 'ioredis';
import { z } from 'zod';
import { decodeMessage } from '../redis/decode-message';

/**
 * Key-change notifications between gateway instances (docs/keys-and-accounts.md: a revoke or block
 * takes effect on every instance within 1 s). The instance (or CLI) that changed a key
 * publishes its id on a Redis channel after the database write; every instance's key cache
 * reloads that key from the database on the message. Messages carry ids only, never key
 * text or hashes. Redis pub/sub is fire-and-forget: a message sent while an instance is
 * disconnected is lost, so the key cache's periodic database check stays on as the backstop.
 */
const KeyChangeEventSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('api-key'), id: z.string().max(200) }),
  z.object({ kind: z.literal('usage-key'), accountId: z.string().max(200) }),
]);
export type KeyChangeEvent = z.infer<typeof KeyChangeEventSchema>;

export const KEY_EVENTS_CHANNEL = 'mg:key-events';

/** How long a publish may take before the change is left to the backstop. */
const PUBLISH_TIMEOUT_MS = 1_000;

export interface KeyEventsSubscriber {
  close(): Promise<void>;
}

export function encodeKeyEvent(event: KeyChangeEvent): string {
  return JSON.stringify(event);
}

/** Never throws: a malformed message (another version, another tool) is ignored. */
export function decodeKeyEvent(message: string): KeyChangeEvent | null {
  return decodeMessage(KeyChangeEventSchema, message);
}

/**
 * Publishes on a client the caller owns (the gateway's fail-fast rate-limit client: while
 * Redis is down this rejects at once instead of queueing).
 */
export async function publishKeyEvent(redis: Redis, event: KeyChangeEvent, channel = KEY_EVENTS_CHANNEL): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Redis did not take the key-change message within ${PUBLISH_TIMEOUT_MS} ms`)),
      PUBLISH_TIMEOUT_MS,
    );
    timer.unref();
  });
  try {
    await Promise.race([redis.publish(channel, encodeKeyEvent(event)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** For the CLI: one short-lived connection, one message. Rejects when Redis cannot take it. */
export async function publishKeyEventOnce(redisUrl: string, event: KeyChangeEvent, channel = KEY_EVENTS_CHANNEL): Promise<void> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: PUBLISH_TIMEOUT_MS,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await publishKeyEvent(redis, event, channel);
  } finally {
    redis.disconnect();
  }
}

export interface SubscribeOptions {
  redisUrl: string;
  channel?: string;
  onEvent: (event: KeyChangeEvent) => void;
  /** Subscribed again after an outage: changes made meanwhile were missed. */
  onResubscribed?: () => void;
  onError?: (error: unknown) => void;
}

/**
 * A dedicated subscriber connection (a subscribed Redis connection can do nothing else).
 * It reconnects and resubscribes by itself after an outage.
 */
export function subscribeKeyEvents(options: SubscribeOptions): KeyEventsSubscriber {
  const channel = options.channel ?? KEY_EVENTS_CHANNEL;
  const redis = new Redis(options.redisUrl, {
    lazyConnect: false,
    maxRetriesPerRequest: null,
    autoResubscribe: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let lastError = 0;
  redis.on('error', (error) => {
    // ioredis repeats the error on every reconnect attempt; once per 10 s is enough.
    const now = Date.now();
    if (now - lastError > 10_000) options.onError?.(error);
    lastError = now;
  });
  let subscribedBefore = false;
  redis.on('ready', () => {
    if (subscribedBefore) options.onResubscribed?.();
    subscribedBefore = true;
  });
  redis.on('message', (receivedOn: string, message: string) => {
    if (receivedOn !== channel) return;
    const event = decodeKeyEvent(message);
    if (event) options.onEvent(event);
  });
  redis.subscribe(channel).catch((error: unknown) => options.onError?.(error));
  return {
    async close() {
      redis.disconnect();
    },
  };
}
