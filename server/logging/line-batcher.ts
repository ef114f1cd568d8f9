import type { DestinationStream } from 'pino';

/** What the batcher needs of pino's buffered destination (a SonicBoom). */
export interface FlushableDestination extends DestinationStream {
  flush?(callback?: (error?: Error) => void): void;
  flushSync?(): void;
}

/** Lines handed on at once when they reach this many characters, without waiting for the turn to end. */
export const BATCH_CHARS = 4096;

/**
 * A log destination that joins the lines written in one event-loop turn and hands them on as
 * one string (at the end of the turn, or at once past BATCH_CHARS). pino's SonicBoom adds
 * every write to the string it buffers and measures that whole string again
 * (`Buffer.byteLength`), which flattens it: with a line per request, that was ~6 KB of
 * garbage per request under load, the largest single allocation of a request. Lines keep
 * their order (every line of the logger goes through here); `flush`/`flushSync` hand on
 * what is pending first, and so does process exit (a line logged just before
 * `process.exit` is not lost).
 *
 * `holdChars`: for a destination that holds what it is given until it has that much anyway
 * (pino's buffered destination with its `minLength`), the lines are held here instead, across
 * turns, and handed on in one piece once they reach it (or on `flush`, `flushSync` and exit):
 * the destination adds each piece to the string it holds and measures that whole string
 * again, flattening it, so pieces of a turn each cost it a copy of everything held before
 * (~1.7 KB of garbage per access-log line under load). The lines reach the file when they
 * did: at `holdChars`, or at the flush.
 */
export function batchLines(inner: FlushableDestination, holdChars = 0): FlushableDestination {
  const handOnAt = Math.max(BATCH_CHARS, holdChars);
  let pending: string[] = [];
  let chars = 0;
  let scheduled = false;

  const handOn = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending.length === 1 ? (pending[0] as string) : pending.join('');
    pending = [];
    chars = 0;
    withPending.delete(handOn);
    inner.write(chunk);
  };
  const exitFlush = (): void => {
    handOn();
    inner.flushSync?.();
  };

  return {
    write(line: string): void {
      pending.push(line);
      chars += line.length;
      if (chars >= handOnAt) {
        handOn();
      } else if (holdChars > 0) {
        if (pending.length === 1) withPending.set(handOn, exitFlush);
      } else if (!scheduled) {
        scheduled = true;
        withPending.set(handOn, exitFlush);
        setImmediate(handOn);
      }
    },
    flush(callback?: (error?: Error) => void): void {
      handOn();
      if (inner.flush) inner.flush(callback);
      else callback?.();
    },
    flushSync(): void {
      handOn();
      inner.flushSync?.();
    },
  };
}

/** Batchers holding lines not yet handed on, with what to do with them at exit. */
const withPending = new Map<() => void, () => void>();

process.on('exit', () => {
  for (const exitFlush of [...withPending.values()]) {
    try {
      exitFlush();
    } catch {
      // Nothing more can be done for a log line at exit.
    }
  }
});
