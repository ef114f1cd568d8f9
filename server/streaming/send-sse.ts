import type { Reply } from '../pipeline/reply';
import { SSE_HEADERS } from './encode-sse';

/**
 * Sends an SSE body produced by `events` (already encoded strings), written straight to the
 * response (no Readable and pipe in between). Headers go out at once: with the first events
 * when those are already there by the end of this turn of the event loop (one write, not
 * two), on their own otherwise; the last events go out with the end of the body (again one
 * write). The generator is pulled only as fast as the client reads: a write that fills the
 * socket's buffer pauses it until `drain`. When the client goes away first, `onClientGone`
 * runs (to abort the upstream call) and the generator is closed so its `finally` blocks run.
 */
export function sendSse(reply: Reply, events: AsyncGenerator<string>, onClientGone: () => void): void {
  reply.startStream(SSE_HEADERS);
  new SsePump(reply, events, onClientGone).start();
}

/**
 * Events of one upstream read are gathered while the generator keeps producing within the
 * same turn of the event loop and written in one piece from `setImmediate`, which runs right
 * after those turns: no event waits for a later one, and a fast upstream's whole reply is one
 * or two writes instead of one per event.
 */
class SsePump {
  private pending = '';
  private flushScheduled = false;
  private pulling = false;
  private waitingForDrain = false;
  /** The generator is done (the body was ended). */
  private finished = false;
  /** The response closed (ended, or the client went away). */
  private closed = false;
  private readonly flushLater = () => this.flush();

  constructor(
    private readonly response: Reply,
    private readonly events: AsyncGenerator<string>,
    private readonly onClientGone: () => void,
  ) {
    response.onClose(() => {
      this.closed = true;
      if (this.finished) return;
      this.onClientGone();
      // Like Readable.from's destroy: closing the generator runs its `finally` (usage is recorded there).
      this.events.return(undefined).catch(() => undefined);
    });
  }

  start(): void {
    setImmediate(() => {
      this.flush();
      if (!this.closed) this.response.flushHeaders();
    });
    // `pull` catches its own failures (it destroys the response).
    void this.pull();
  }

  private async pull(): Promise<void> {
    this.pulling = true;
    try {
      while (!this.closed && !this.waitingForDrain) {
        const next = await this.events.next();
        if (this.closed) return;
        if (next.done) {
          this.finished = true;
          const rest = this.pending;
          this.pending = '';
          this.response.end(rest);
          return;
        }
        this.pending += next.value;
        if (!this.flushScheduled) {
          this.flushScheduled = true;
          setImmediate(this.flushLater);
        }
      }
    } catch {
      // streamEvents turns every failure into an error event; this is a bug's last resort.
      this.response.destroy();
    } finally {
      this.pulling = false;
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0 || this.closed || this.finished) return;
    const chunk = this.pending;
    this.pending = '';
    if (this.response.write(chunk)) return;
    // The socket's buffer is full: stop pulling until the client has read.
    this.waitingForDrain = true;
    this.response.onDrain(() => {
      this.waitingForDrain = false;
      // As in `start`: `pull` catches its own failures.
      if (!this.pulling && !this.closed && !this.finished) void this.pull();
    });
  }
}
