import type { ChainableCommander, Redis } from 'ioredis';

/** The replies of one part's commands, in order; each an error or the command's result. */
export type PartReplies = Array<[Error | null, unknown]>;

/** What one writer adds to a turn's transaction, and what it does with the replies. */
export interface TransactionPart {
  add(multi: ChainableCommander): void;
  /** The part's own replies, or the error that failed the whole transaction. */
  done(replies: PartReplies | null, error: unknown): void;
}

/**
 * One Redis round trip per event-loop turn for the writes that go together: a call's usage
 * XADD (usage.durability redis_stream) and its rate-limit settlement (the token bucket's
 * adjust) are sent in the same MULTI (docs/usage-durability.md). Writers join the turn's
 * transaction; right after the turn (setImmediate) it is sent once, and each part gets its
 * own replies. A command that fails fails only its own reply (Redis runs the others).
 */
export class RedisTurnTransaction {
  private parts: TransactionPart[] = [];
  private scheduled = false;

  constructor(private readonly redis: Redis) {}

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
    const multi = this.redis.multi();
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
