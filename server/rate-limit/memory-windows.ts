import type { HitResult, WindowRequest, WindowState } from './types';

/** A checked window request: a RangeError otherwise (a programming error, not an outage). */
export function validateWindows(windows: WindowRequest[]): void {
  for (const window of windows) {
    if (!Number.isSafeInteger(window.limit) || window.limit <= 0 || !Number.isSafeInteger(window.windowMs) || window.windowMs <= 0) {
      throw new RangeError(`rate limit: invalid window ${JSON.stringify(window)}`);
    }
  }
}

/**
 * Sliding windows for one instance: the times of the hits in each window, oldest first.
 * Memory stays bounded: a window whose hits have all expired is deleted, found by a lazy
 * sweep of a few entries at the Map's head per call (like the bucket store's).
 */
export function createMemoryWindows(now: () => number, sweepPerCall = 4) {
  const hits = new Map<string, number[]>();

  function live(id: string, windowMs: number, at: number): number[] {
    const times = hits.get(id);
    if (times === undefined) return [];
    let expired = 0;
    while (expired < times.length && (times[expired] as number) <= at - windowMs) expired += 1;
    if (expired > 0) times.splice(0, expired);
    return times;
  }

  function sweep(at: number, longestWindowMs: number): void {
    const ids = hits.keys();
    for (let index = 0; index < sweepPerCall; index += 1) {
      const head = ids.next();
      if (head.done === true) return;
      const times = hits.get(head.value) as number[];
      hits.delete(head.value);
      // Kept (at the tail) while its newest hit may still count in some window.
      if (times.length > 0 && (times.at(-1) as number) > at - longestWindowMs) hits.set(head.value, times);
    }
  }

  return {
    hit(windows: WindowRequest[]): HitResult {
      validateWindows(windows);
      const at = Math.floor(now());
      const lists = windows.map((window) => live(window.id, window.windowMs, at));
      const allowed = windows.every((window, index) => (lists[index] as number[]).length < window.limit);
      const states: WindowState[] = windows.map((window, index) => {
        const times = lists[index] as number[];
        if (allowed) {
          // Times stay in order even if the clock steps back.
          times.push(Math.max(at, times.at(-1) ?? at));
          if (!hits.has(window.id)) hits.set(window.id, times);
          return { limit: window.limit, remaining: window.limit - times.length, retryAfterMs: 0 };
        }
        if (times.length < window.limit) return { limit: window.limit, remaining: window.limit - times.length, retryAfterMs: 0 };
        // One more fits once the hit that brings the count below the limit has left the window.
        const leaving = times[times.length - window.limit] as number;
        return { limit: window.limit, remaining: 0, retryAfterMs: Math.max(1, leaving + window.windowMs - at) };
      });
      sweep(at, Math.max(0, ...windows.map((window) => window.windowMs)));
      return { allowed, windows: states };
    },
    size: () => hits.size,
    clear: () => hits.clear(),
  };
}
