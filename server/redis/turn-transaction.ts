import type { ChainableCommander, Redis } from 'ioredis';

/** The replies of one part's commands, in order; each an error or the command's result. */
export type PartReplies = Array<[Error | null, unknown]>;

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
 */
export class RedisTurnTransaction {
  private parts: TransactionPart[] = [];
  private scheduled = false;

  constructor(private readonly redis: Redis) {}

  /** One command's reply (or its error) as a promise: `add` queues exactly one command. */
  call(add: (multi: ChainableCommander) => void): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.join({
        add,
        done: (replies, error) => {
          const reply = replies?.[0];
          const failed = error ?? reply?.[0] ?? (reply === undefined ? new Error('Redis transaction: no reply') : null);
          if (failed === null) resolve(reply?.[1]);
          else reject(failed instanceof Error ? failed : new Error(String(failed)));
        },
      });
    });
  }

  join(part: TransactionPart): void {
    this.parts.push(part);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.send);
  }

  private readonly send = (): void => {
    this.scheduled = false;
    const parts = this.parts;
    this.parts = [];
    const multi = parts.some((part) => part.atomic === true) ? this.redis.multi() : this.redis.pipeline();
    const counts = parts.map((part) => {
      const before = multi.length;
      part.add(multi);
      return multi.length - before;
    });
    multi.exec().then(
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
