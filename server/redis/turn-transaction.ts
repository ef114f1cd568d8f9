import type { ChainableCommander, Redis } from 'ioredis';
import { batchScript, FIELD_SEPARATOR } from './batch-script';

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
   * turn then goes as MULTI … EXEC. A turn of scripts alone goes as one command.
   */
  atomic?: boolean;
  add(multi: ChainableCommander): void;
  /** The part's own replies, or the error that failed the whole transaction. */
  done(replies: PartReplies | null, error: unknown): void;
}

/** One call of a script the stores defined (`defineScript`), and where its reply goes. */
interface ScriptCall {
  name: string;
  keys: readonly string[];
  args: ReadonlyArray<string | number>;
  resolve(reply: unknown): void;
  reject(error: Error): void;
}

const BATCH_COMMAND = 'modelGatewayTurnBatch';

/** The command `defineCommand` adds for the turn's batch script (sent as EVALSHA). */
interface BatchCommand<Result> {
  [BATCH_COMMAND](numberOfKeys: number, ...keysAndArgs: Array<string | number>): Result;
}

const asError = (failure: unknown): Error => (failure instanceof Error ? failure : new Error(String(failure)));

/**
 * One Redis round trip per event-loop turn for the commands of that turn: the calls'
 * rate-limit reservations (the token buckets' take), their settlements (adjust), the spend
 * budgets' scripts and, with usage.durability redis_stream, their usage XADD are sent together
 * (docs/usage-durability.md, docs/performance.md "Redis and Postgres per request").
 * The turn's script calls go as ONE call of a batch script that runs each in order, each
 * as its script alone would (server/redis/batch-script.ts): one command and one reply for
 * the turn, a failing call failing only its own reply. A turn with the usage stream's writes
 * goes as a MULTI, the batch one of its commands. Writers join the turn; right after it
 * (setImmediate) it is written once, and each part gets its own replies.
 * A settlement, which nothing waits for, may wait up to SETTLEMENT_WAIT_MS for the next turn
 * that writes (`canWait`); it goes ahead of that turn's calls, in the order it was made.
 */
export class RedisTurnTransaction {
  private parts: TransactionPart[] = [];
  private calls: ScriptCall[] = [];
  private waiting: ScriptCall[] = [];
  private scheduled = false;
  private waitTimer: NodeJS.Timeout | null = null;
  private lastWrite: Promise<unknown> = Promise.resolve();
  private readonly scripts = new Map<string, string>();

  constructor(private readonly redis: Redis) {}

  /**
   * Adds a script the batch can run by name: its text as sent alone, using KEYS and ARGV and
   * ending in a `return` (server/redis/batch-script.ts). Called when a store is made.
   */
  defineScript(name: string, lua: string): void {
    if (name.includes(FIELD_SEPARATOR)) throw new Error(`Redis turn: a script's name may not hold the batch's field separator (${name})`);
    this.scripts.set(name, lua);
    this.redis.defineCommand(BATCH_COMMAND, { lua: batchScript(this.scripts) });
  }

  /** One call of a defined script in the turn's batch; its reply, or its own error. */
  script(name: string, keys: readonly string[], args: ReadonlyArray<string | number>, canWait = false): Promise<unknown> {
    if (!this.scripts.has(name)) return Promise.reject(new Error(`Redis turn: no script ${name}`));
    for (const arg of args) {
      if (typeof arg === 'string' && arg.includes(FIELD_SEPARATOR)) {
        return Promise.reject(new Error(`Redis turn: an argument of ${name} holds the batch's field separator`));
      }
    }
    return new Promise((resolve, reject) => {
      const call: ScriptCall = { name, keys, args, resolve, reject };
      if (canWait) {
        this.waiting.push(call);
        if (!this.scheduled && this.waitTimer === null) this.waitTimer = setTimeout(this.sendWaiting, SETTLEMENT_WAIT_MS);
        return;
      }
      this.calls.push(call);
      this.schedule();
    });
  }

  join(part: TransactionPart): void {
    this.parts.push(part);
    this.schedule();
  }

  /** Writes what waits now and resolves once its replies are in (before the client is closed). */
  async flush(): Promise<void> {
    this.send();
    await this.lastWrite.catch(() => undefined);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.send);
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
    const calls = this.waiting.length === 0 ? this.calls : this.waiting.concat(this.calls);
    const parts = this.parts;
    this.waiting = [];
    this.calls = [];
    this.parts = [];
    if (parts.length === 0) {
      if (calls.length > 0) this.lastWrite = this.sendBatch(calls);
      return;
    }
    const multi = parts.some((part) => part.atomic === true) ? this.redis.multi() : this.redis.pipeline();
    if (calls.length > 0) this.addBatch(multi, calls);
    const counts = parts.map((part) => {
      const before = multi.length;
      part.add(multi);
      return multi.length - before;
    });
    this.lastWrite = multi.exec().then(
      (replies) => {
        if (replies === null) {
          const aborted = new Error('Redis transaction aborted');
          for (const call of calls) call.reject(aborted);
          for (const part of parts) part.done(null, aborted);
          return;
        }
        let at = 0;
        if (calls.length > 0) {
          const [error, reply] = replies[0] ?? [new Error('Redis transaction: no reply'), null];
          settleCalls(calls, error, reply);
          at = 1;
        }
        parts.forEach((part, index) => {
          const count = counts[index] ?? 0;
          part.done(replies.slice(at, at + count), null);
          at += count;
        });
      },
      (error: unknown) => {
        for (const call of calls) call.reject(asError(error));
        for (const part of parts) part.done(null, error);
      },
    );
  };

  private sendBatch(calls: ScriptCall[]): Promise<unknown> {
    const [keyCount, keysAndArgs] = batchArguments(calls);
    return (this.redis as Redis & BatchCommand<Promise<unknown>>)[BATCH_COMMAND](keyCount, ...keysAndArgs).then(
      (reply) => settleCalls(calls, null, reply),
      (error: unknown) => settleCalls(calls, asError(error), null),
    );
  }

  private addBatch(multi: ChainableCommander, calls: ScriptCall[]): void {
    const [keyCount, keysAndArgs] = batchArguments(calls);
    (multi as ChainableCommander & BatchCommand<ChainableCommander>)[BATCH_COMMAND](keyCount, ...keysAndArgs);
  }
}

/**
 * KEYS: every call's keys in order; ARGV: one text, per call its name, key count, argument
 * count and arguments (server/redis/batch-script.ts). `join` writes a number as ioredis would
 * (`String`), so each script reads the same argument text as when sent alone.
 */
function batchArguments(calls: readonly ScriptCall[]): [number, string[]] {
  const keysAndArgs: string[] = [];
  const fields: Array<string | number> = [];
  for (const call of calls) {
    for (const key of call.keys) keysAndArgs.push(key);
    fields.push(call.name, call.keys.length, call.args.length);
    for (const arg of call.args) fields.push(arg);
  }
  const keyCount = keysAndArgs.length;
  keysAndArgs.push(fields.join(FIELD_SEPARATOR));
  return [keyCount, keysAndArgs];
}

/** Each call its own reply of the batch's (an error element fails that call alone). */
function settleCalls(calls: readonly ScriptCall[], error: Error | null, reply: unknown): void {
  if (error === null && (!Array.isArray(reply) || reply.length !== calls.length)) error = new Error('Redis turn: unexpected batch reply');
  calls.forEach((call, index) => {
    if (error !== null) return call.reject(error);
    const own: unknown = (reply as unknown[])[index];
    if (own instanceof Error) call.reject(own);
    else call.resolve(own);
  });
}
