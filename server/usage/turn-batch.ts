/** How the callers of one batch learn its outcome. */
export interface BatchOutcome {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The promise every caller of one batch waits on, settled by the write that takes it
 * (docs/usage-durability.md: the reply's last bytes wait for their usage to be durable).
 */
export class SharedOutcome {
  private pending: (BatchOutcome & { promise: Promise<void> }) | null = null;

  /** The promise of the next write: resolved once what is buffered is durable. */
  next(): Promise<void> {
    if (this.pending === null) {
      let resolve: () => void = () => undefined;
      let reject: (error: unknown) => void = () => undefined;
      const promise = new Promise<void>((done, fail) => {
        resolve = done;
        reject = fail;
      });
      // Callers that do not wait (a call that failed anyway) must not raise an unhandled rejection.
      promise.catch(() => undefined);
      this.pending = { promise, resolve, reject };
    }
    return this.pending.promise;
  }

  /** For the write: the outcome of what it writes (null when nobody waits); later callers wait on the next one. */
  take(): BatchOutcome | null {
    const taken = this.pending;
    this.pending = null;
    return taken;
  }
}

/**
 * What one event-loop turn buffers, written at once right after that turn (setImmediate), as
 * the usage journal does: every caller of the turn waits on one shared promise.
 */
export class TurnBatch extends SharedOutcome {
  private scheduled = false;
  private readonly run = (): void => {
    this.scheduled = false;
    this.write();
  };

  constructor(private readonly write: () => void) {
    super();
  }

  /** Runs the write right after this turn (once, however many callers ask). */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }
}
