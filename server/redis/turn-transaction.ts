import type { ChainableCommander, Redis } from 'ioredis';

/** The replies of one part's commands, in order; each an error or the command's result. */
export type PartReplies = Array<[Error | null, unknown]>;

/**
 * How long a settlement may wait for a turn that writes to Redis anyway (docs/performance.md,
 * "Redis and Postgres per request"): under load the next reservation comes sooner, and the
 * settlement goes in its write instead of a write and a read of its own.
 */
export const SETTLEMENT_WAIT_MS = 5;

/** What one writer adds to a turn's transaction, and what it does with the replies. */
export interface TransactionPart {
  /**
   * The part's commands must apply all or none (the usage stream's XADD with its HDEL): the
   * turn then goes as MULTI … EXEC. A turn of parts that are each one script (atomic on its
   * own) goes as a plain pipeline, without the MULTI, the EXEC and a QUEUED reply per command.
   */
  atomic?: boolean;
  add(multi: ChainableCommander): void;
  /** The part's own replies, or the error that failed the whole transaction. */
  done(replies: PartReplies | null, error: unknown): void;
}

/**
 * One Redis round trip per event-loop turn for the commands of that turn: the calls'
 * rate-limit reservations (the token buckets' take), their settlements (adjust) and, with
 * usage.durability redis_stream, their usage XADD are sent together, as a MULTI when a part
 * needs one (docs/usage-durability.md, docs/performance.md "Redis and Postgres per request").
 * Writers join the turn's transaction; right after the turn (setImmediate) it is written once, and
 * each part gets its own replies. A command that fails fails only its own reply (Redis runs
 * the others). Each script is atomic on its own, so a reservation is as exact as when sent alone.
 * A settlement, which nothing waits for, may wait up to SETTLEMENT_WAIT_MS for the next turn
 * that writes (`canWait`); it goes ahead of that turn's commands, in the order it was made.
 */
export class RedisTurnTransaction {
  private parts: TransactionPart[] = [];
  private scheduled = false;
  private waiting: TransactionPart[] = [];
  private waitTimer: NodeJS.Timeout | null = null;
  private lastWrite: Promise<unknown> = Promise.resolve();

  constructor(private readonly redis: Redis) {}

  /** One command's reply (or its error) as a promise: `add` queues exactly one command. */
  call(add: (multi: ChainableCommander) => void, canWait = false): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.join(
        {
          add,
          done: (replies, error) => {
            const reply = replies?.[0];
            const failed = error ?? reply?.[0] ?? (reply === undefined ? new Error('Redis transaction: no reply') : null);
            if (failed === null) resolve(reply?.[1]);
            else reject(failed instanceof Error ? failed : new Error(String(failed)));
          },
        },
        canWait,
      );
    });
  }

  /** `canWait`: the part may wait for the next turn that writes, at most SETTLEMENT_WAIT_MS. */
  join(part: TransactionPart, canWait = false): void {
    if (canWait) {
      this.waiting.push(part);
      if (this.scheduled || this.waitTimer !== null) return;
      this.waitTimer = setTimeout(this.sendWaiting, SETTLEMENT_WAIT_MS);
      return;
    }
    this.parts.push(part);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.send);
  }

  /** Writes what waits now and resolves once its replies are in (before the client is closed). */
  async flush(): Promise<void> {
    if (this.waiting.length > 0 || this.parts.length > 0) this.send();
    await this.lastWrite.catch(() => undefined);
  }

  private readonly sendWaiting = (): void => {
    this.waitTimer = null;
    if (!this.scheduled) this.send();
  };

  private readonly send = (): void => {
    this.scheduled = false;
    if (this.waitTimer !== null) {
      clearTimeout(this.waitTimer);
      this.waitTimer = null;
    }
    const parts = this.waiting.length === 0 ? this.parts : this.waiting.concat(this.parts);
    this.waiting = [];
    this.parts = [];
    if (parts.length === 0) return;
    const multi = parts.some((part) => part.atomic === true) ? this.redis.multi() : this.redis.pipeline();
    const counts = parts.map((part) => {
      const before = multi.length;
      part.add(multi);
      return multi.length - before;
    });
    this.lastWrite = multi.exec().then(
      (replies) => {
        if (replies === null) {
          for (const part of parts) part.done(null, new Error('Redis transaction aborted'));
          return;
        }
        let at = 0;
        parts.forEach((part, index) => {
          const count = counts[index] ?? 0;
          part.done(replies.slice(at, at + count), null);
          at += count;
        });
      },
      (error: unknown) => {
        for (const part of parts) part.done(null, error);
      },
    );
  };
}
