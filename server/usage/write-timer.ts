import type { ClearTimer, SetTimer } from './recorder-options';

/**
 * The recorder's one background timer. `schedule` keeps an armed timer that fires no later
 * than asked and otherwise re-arms, so record() can call it on every event cheaply.
 */
export class WriteTimer {
  private timer: unknown = null;
  private armed = false;
  /** -Infinity: armed to fire immediately. */
  private dueAt = 0;

  constructor(
    private readonly setTimer: SetTimer,
    private readonly clearTimer: ClearTimer,
    private readonly now: () => number,
    private readonly onFire: () => void,
  ) {}

  schedule(delayMs: number): void {
    // Checked first so a burst of record() calls past batchSize does not read the clock.
    if (this.armed && this.dueAt === Number.NEGATIVE_INFINITY) return;
    const dueAt = delayMs <= 0 ? Number.NEGATIVE_INFINITY : this.now() + delayMs;
    if (this.armed) {
      if (this.dueAt <= dueAt) return;
      this.clearTimer(this.timer);
    }
    this.armed = true;
    this.dueAt = dueAt;
    this.timer = this.setTimer(() => this.fire(), Math.max(0, delayMs));
    unref(this.timer);
  }

  /** Replaces whatever is armed (a retry must wait its backoff even if a flush was due sooner). */
  reschedule(delayMs: number): void {
    this.cancel();
    this.schedule(delayMs);
  }

  cancel(): void {
    if (!this.armed) return;
    this.clearTimer(this.timer);
    this.armed = false;
    this.timer = null;
  }

  private fire(): void {
    this.armed = false;
    this.timer = null;
    this.onFire();
  }
}

/** The background timer must not keep a process alive by itself; drain() keeps its own timers referenced. */
function unref(handle: unknown): void {
  if (typeof handle === 'object' && handle !== null && 'unref' in handle && typeof handle.unref === 'function') {
    handle.unref();
  }
}
