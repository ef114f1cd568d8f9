import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Store, UsageEventRow } from '../db/types';
import { INTERRUPTED_CODE, INTERRUPTED_STATUS, type InFlightUsage, type UsageDurability } from './durability';
import { decodeJournalLine, encodeJournalLine } from './journal-line';
import type { UsageStreamMetrics } from '../metrics/gateway-metrics';
import type { UsageRecorderLogger } from './recorder-options';
import type { RedisTurnTransaction } from '../redis/turn-transaction';
import { SharedOutcome, type BatchOutcome } from './turn-batch';
import type { UsageEvent } from './types';
import { invalidUsageEventReason, ShanghaiDayCache, toUsageEventRow } from './usage-event-row';

export interface RedisStreamOptions {
  redis: Redis;
  /** The turn's Redis transaction, shared with the rate-limit store (one round trip for both). */
  transaction: RedisTurnTransaction;
  store: Store;
  /** Key prefix of the stream, the in-flight hashes and the heartbeats. */
  prefix: string;
  /** A delivered entry not acknowledged for this long is claimed by another instance; also how long a silent instance is presumed alive. */
  claimIdleMs: number;
  batchSize: number;
  eventId: () => string;
  logger: UsageRecorderLogger;
}

const GROUP = 'usage-writers';
const READ_BLOCK_MS = 1_000;

/**
 * `usage.durability: redis_stream` (docs/usage-durability.md), for instances without a
 * persistent disk. An ended call's event is XADDed to one Redis Stream (with the lines of all
 * calls ended in the same event-loop turn, one MULTI) before the reply's last bytes; every
 * instance drains the stream into the database through one consumer group (XREADGROUP, then
 * XACK and XDEL once stored, idempotent by event id), and claims (XAUTOCLAIM) entries a dead
 * consumer left unacknowledged. Calls in flight are kept in a hash per instance, beside a
 * heartbeat key; when an instance's heartbeat expires, another one records its calls as 499
 * interrupted, once (the hash is renamed away atomically first).
 */
export class RedisStreamDurability implements UsageDurability {
  readonly instance = randomUUID();
  private readonly stream: string;
  private readonly inFlightKey: string;
  private readonly reader: Redis;
  private buffer: Array<{ id: string; line: string | null; ended: boolean }> = [];
  private readonly outcome = new SharedOutcome();
  private healthy = true;
  private running = true;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly days = new ShanghaiDayCache();
  private consumer: Promise<void> = Promise.resolve();
  private written = 0;

  constructor(private readonly options: RedisStreamOptions) {
    this.stream = `${options.prefix}stream`;
    this.inFlightKey = `${options.prefix}inflight:${this.instance}`;
    // XREADGROUP BLOCK holds its connection: a connection of its own.
    this.reader = options.redis.duplicate();
    this.reader.on('error', () => undefined);
  }

  async start(): Promise<void> {
    const { redis } = this.options;
    if (redis.status !== 'ready') {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('usage.durability redis_stream: Redis is not reachable')), 30_000);
        redis.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await redis.xgroup('CREATE', this.stream, GROUP, '0', 'MKSTREAM').catch((error: unknown) => {
      if (!String(error).includes('BUSYGROUP')) throw error;
    });
    await this.heartbeat();
    const every = (ms: number, task: () => Promise<unknown>) => {
      const timer = setInterval(
        () => void task().catch((error: unknown) => this.options.logger.warn({ err: error }, 'usage stream: background task failed')),
        ms,
      );
      timer.unref();
      this.timers.push(timer);
    };
    every(Math.max(100, Math.floor(this.options.claimIdleMs / 3)), () => this.heartbeat());
    every(Math.max(100, Math.floor(this.options.claimIdleMs / 2)), () => this.claimDead());
    this.consumer = this.consume();
  }

  available(): boolean {
    return this.healthy && this.running && this.options.redis.status === 'ready';
  }

  /** docs/usage-durability.md, "Metrics": one round trip (XLEN, the XPENDING summary, MEMORY USAGE, HLEN). */
  async stats(): Promise<UsageStreamMetrics> {
    const replies = await this.options.redis
      .pipeline()
      .xlen(this.stream)
      .xpending(this.stream, GROUP)
      .memory('USAGE', this.stream)
      .hlen(this.inFlightKey)
      .exec();
    const value = (index: number): unknown => {
      const [error, result] = replies?.[index] ?? [new Error('no reply'), null];
      if (error) throw error;
      return result;
    };
    const summary = value(1) as [number, ...unknown[]] | null;
    return {
      length: Number(value(0)),
      pending: Number(summary?.[0] ?? 0),
      bytes: Number(value(2) ?? 0),
      inFlight: Number(value(3)),
      stored: this.written,
    };
  }

  begin(interrupted: UsageEvent): InFlightUsage {
    const id = this.options.eventId();
    this.enqueue({ id, line: encodeJournalLine('open', id, interrupted), ended: false });
    let ended = false;
    return {
      eventId: id,
      checkpoint: (event) => {
        if (!ended) this.enqueue({ id, line: encodeJournalLine('progress', id, { ...event, status: INTERRUPTED_STATUS }), ended: false });
      },
      finish: (event) => {
        if (ended) return Promise.resolve();
        ended = true;
        this.enqueue({ id, line: encodeJournalLine('event', id, event), ended: true });
        return this.outcome.next();
      },
      cancel: () => {
        if (ended) return;
        ended = true;
        this.enqueue({ id, line: null, ended: true });
      },
    };
  }

  /** Stops taking calls, writes what the stream holds for this instance, leaves the group's view clean. */
  async close(timeoutMs: number): Promise<void> {
    // What the last turn buffered goes in the turn's transaction: stored before the drain below ends.
    if (this.buffer.length > 0) await this.outcome.next().catch(() => undefined);
    this.running = false;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.race([this.consumer, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    // Calls left in flight (none after a full drain) are recorded by another instance at once.
    await this.options.redis.del(`${this.options.prefix}alive:${this.instance}`).catch(() => undefined);
    this.reader.disconnect();
  }

  /**
   * An entry for the turn's transaction. Only an ended call's event waits for its outcome
   * (`finish`); open lines, checkpoints and cancellations do not, and a failed write shows in
   * `available()` and the log.
   */
  private enqueue(entry: { id: string; line: string | null; ended: boolean }): void {
    if (this.buffer.length === 0) this.joinTurn();
    this.buffer.push(entry);
  }

  /**
   * The turn's lines go in the Redis transaction of the turn, with the rate-limit settlements
   * of the same calls (one round trip): in-flight updates, and each ended call's XADD with its
   * HDEL, atomically.
   */
  private joinTurn(): void {
    let group: BatchOutcome | null = null;
    this.options.transaction.join({
      atomic: true,
      add: (multi) => {
        const entries = this.buffer;
        this.buffer = [];
        group = this.outcome.take();
        for (const entry of entries) {
          if (!entry.ended && entry.line !== null) multi.hset(this.inFlightKey, entry.id, entry.line);
          if (entry.ended) {
            if (entry.line !== null) multi.xadd(this.stream, '*', 'line', entry.line);
            multi.hdel(this.inFlightKey, entry.id);
          }
        }
      },
      done: (replies, error) => {
        const failed = error ?? replies?.find(([commandError]) => commandError !== null)?.[0] ?? null;
        if (failed === null) {
          if (!this.healthy) this.options.logger.error({}, 'usage stream writable again');
          this.healthy = true;
          group?.resolve();
          return;
        }
        if (this.healthy)
          this.options.logger.error({ err: failed }, 'usage stream cannot be written: model calls answer 503 usage_unavailable');
        this.healthy = false;
        group?.reject(failed);
      },
    });
  }

  private async heartbeat(): Promise<void> {
    await this.options.redis
      .multi()
      .set(`${this.options.prefix}alive:${this.instance}`, '1', 'PX', this.options.claimIdleMs)
      .sadd(`${this.options.prefix}instances`, this.instance)
      .exec();
    if (!this.healthy && this.options.redis.status === 'ready') this.healthy = true;
  }

  private async consume(): Promise<void> {
    let own = '0';
    // After close() began: on until a read finds nothing more for this instance.
    let drained = false;
    while (this.running || !drained) {
      try {
        const reply = (await this.reader.xreadgroup(
          'GROUP',
          GROUP,
          this.instance,
          'COUNT',
          this.options.batchSize,
          'BLOCK',
          READ_BLOCK_MS,
          'STREAMS',
          this.stream,
          own,
        )) as Array<[string, Array<[string, string[]]>]> | null;
        const entries = reply?.[0]?.[1] ?? [];
        // Own pending entries first (after a failed write), then new ones.
        if (own === '0' && entries.length === 0) own = '>';
        if (entries.length > 0) await this.store(entries);
        else if (!this.running && own === '>') drained = true;
      } catch (error) {
        if (!this.running) return;
        own = '0';
        this.options.logger.error({ err: error }, 'usage stream: storing events failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  /** Stores entries (each id once; already stored ids are skipped by the store), then acknowledges and deletes them. */
  private async store(entries: Array<[string, string[]]>): Promise<void> {
    const rows: UsageEventRow[] = [];
    for (const [, fields] of entries) {
      const entry = decodeJournalLine(fields[1] ?? '');
      if (entry === null || entry.event === null) {
        this.options.logger.warn({ fields: fields.slice(0, 2) }, 'usage stream: unreadable entry dropped');
        continue;
      }
      const reason = invalidUsageEventReason(entry.event);
      if (reason !== null) {
        this.options.logger.error({ eventId: entry.id, reason }, 'usage stream: an event that cannot be stored; dropped');
        continue;
      }
      rows.push(toUsageEventRow(entry.event, this.days.dayOf(entry.event.receivedAt), entry.id));
    }
    if (rows.length > 0) await this.options.store.recordUsage(rows);
    this.written += rows.length;
    const ids = entries.map(([id]) => id);
    await this.options.redis
      .multi()
      .xack(this.stream, GROUP, ...ids)
      .xdel(this.stream, ...ids)
      .exec();
  }

  /** Entries a dead consumer left unacknowledged, and the calls a dead instance had in flight. */
  private async claimDead(): Promise<void> {
    const claimed = (await this.options.redis.xautoclaim(
      this.stream,
      GROUP,
      this.instance,
      this.options.claimIdleMs,
      '0-0',
      'COUNT',
      this.options.batchSize,
    )) as [string, Array<[string, string[]] | null>];
    const entries = (claimed[1] ?? []).filter((entry): entry is [string, string[]] => entry !== null);
    if (entries.length > 0) await this.store(entries);

    const instancesKey = `${this.options.prefix}instances`;
    for (const other of await this.options.redis.smembers(instancesKey)) {
      if (other === this.instance || (await this.options.redis.exists(`${this.options.prefix}alive:${other}`)) === 1) continue;
      const taken = `${this.options.prefix}inflight-claimed:${other}`;
      // RENAME is atomic: of several instances noticing the same death, one gets the calls.
      const renamed = await this.options.redis.rename(`${this.options.prefix}inflight:${other}`, taken).then(
        () => true,
        () => false,
      );
      if (renamed) {
        const lines = Object.values(await this.options.redis.hgetall(taken));
        const multi = this.options.redis.multi();
        let count = 0;
        for (const line of lines) {
          const entry = decodeJournalLine(line);
          if (entry === null || entry.event === null) continue;
          const event = { ...entry.event, status: INTERRUPTED_STATUS, errorCode: INTERRUPTED_CODE };
          multi.xadd(this.stream, '*', 'line', encodeJournalLine('event', entry.id, event));
          count += 1;
        }
        multi.del(taken);
        await multi.exec();
        if (count > 0)
          this.options.logger.warn(
            { instance: other, interrupted: count },
            'usage stream: calls in flight on a dead instance recorded as interrupted',
          );
      }
      await this.options.redis.srem(instancesKey, other);
    }
  }
}
