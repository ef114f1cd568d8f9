import type { Response } from 'express';
import { Readable } from 'node:stream';
import { SSE_HEADERS } from './encode-sse';

/**
 * Sends an SSE body produced by `events` (already encoded strings). Headers go out at once;
 * the generator is pulled only as fast as the client reads (back-pressure through pipe);
 * when the client goes away first, `onClientGone` runs (to abort the upstream call) and the
 * generator is closed so its `finally` blocks run.
 */
export function sseBody(response: Response, events: AsyncGenerator<string>, onClientGone: () => void): Readable {
  for (const [name, value] of Object.entries(SSE_HEADERS)) response.setHeader(name, value);
  response.status(200);
  response.flushHeaders();
  const readable = new SseEvents(events);
  response.once('close', () => {
    if (!readable.readableEnded) {
      onClientGone();
      readable.destroy();
    }
  });
  return readable;
}

/** What `Readable.from` keeps buffered before it stops pulling the generator. */
const HIGH_WATER_MARK = 16 * 1024;

/**
 * `Readable.from(events)` that writes the events of one upstream read together. An upstream
 * delivers several events per TCP read (all of them, from a fast one); written one by one,
 * each would cost a write and a chunk frame of its own. Events are gathered while the
 * generator keeps producing within the same turn of the event loop and pushed in one piece
 * from `setImmediate`, which runs right after those turns: no event waits for a later one.
 */
class SseEvents extends Readable {
  private pending = '';
  private flushScheduled = false;
  private pulling = false;
  private wanted = false;

  constructor(private readonly events: AsyncGenerator<string>) {
    super({ highWaterMark: HIGH_WATER_MARK });
  }

  override _read(): void {
    this.wanted = true;
    if (!this.pulling) void this.pull();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Like Readable.from: closing the generator runs its `finally` (usage is recorded there).
    const closed = error ? this.events.throw(error) : this.events.return(undefined);
    closed.then(
      () => callback(error),
      (closeError: unknown) => callback(closeError instanceof Error ? closeError : error),
    );
  }

  private async pull(): Promise<void> {
    this.pulling = true;
    try {
      while (this.wanted && !this.destroyed) {
        const next = await this.events.next();
        if (this.destroyed) return;
        if (next.done) {
          this.flush();
          this.push(null);
          return;
        }
        this.pending += next.value;
        if (!this.flushScheduled) {
          this.flushScheduled = true;
          setImmediate(() => this.flush());
        }
      }
    } catch (error) {
      this.destroy(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.pulling = false;
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0 || this.destroyed) return;
    const chunk = this.pending;
    this.pending = '';
    // Full: stop pulling until the client has read (`_read` is called again).
    if (!this.push(chunk)) this.wanted = false;
  }
}
