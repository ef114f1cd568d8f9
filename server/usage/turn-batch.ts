/** How the callers of one batch learn its outcome. */
export interface BatchOutcome {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * What one event-loop turn buffers, written at once right after that turn (setImmediate), as
 * the usage journal and the Redis stream do (docs/usage-durability.md): every caller of the
 * turn waits on one shared promise, settled by the write that takes it.
 */
export class TurnBatch {
  private pending: (BatchOutcome & { promise: Promise<void> }) | null = null;
  private scheduled = false;
  private readonly run = (): void => {
    this.scheduled = false;
    this.write();
  };

  constructor(private readonly write: () => void) {}

  /** Runs the write right after this turn (once, however many callers ask). */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

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
