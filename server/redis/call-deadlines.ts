/** A call awaiting the shared store, as `CallDeadlines` watches it. */
export interface WatchedCall {
  readonly deadline: number;
  readonly onTimeout: () => void;
}

/**
 * The deadlines of the calls awaiting the shared store (Redis), watched by ONE timer instead of
 * a timer per call (docs/performance.md, "Speed tricks in the code"). A call is added when it
 * starts and removed when it is answered; the set keeps the order of the starts, so the oldest
 * call left is the first. The timer is armed for the oldest call's deadline; when it fires,
 * every call past its deadline times out and the timer is armed again for the next. As with a
 * timer per call, a timeout is decided one turn of the event loop later (setImmediate runs
 * after the poll phase): an answer that has been waiting on the socket while this process was
 * busy is read first, so a blocked event loop is not mistaken for a Redis outage.
 */
export class CallDeadlines {
  private readonly pending = new Set<WatchedCall>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly timeoutMs: number) {}

  /** Starts watching a call: `onTimeout` runs unless it is answered within the timeout. */
  watch(onTimeout: () => void): WatchedCall {
    const call: WatchedCall = { deadline: performance.now() + this.timeoutMs, onTimeout };
    this.pending.add(call);
    if (this.timer === null) this.arm(this.timeoutMs);
    return call;
  }

  /** The call was answered (or failed): it no longer times out. */
  answered(call: WatchedCall): void {
    this.pending.delete(call);
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(this.expire, delayMs);
    this.timer.unref();
  }

  private readonly expire = (): void => {
    this.timer = null;
    const now = performance.now();
    for (const call of this.pending) {
      if (call.deadline > now) {
        this.arm(Math.max(1, call.deadline - now));
        return;
      }
      this.pending.delete(call);
      // A call answered before this runs has settled its promise already: the timeout is then
      // a no-op.
      setImmediate(call.onTimeout);
    }
  };
}
