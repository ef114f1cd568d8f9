import { getHeapStatistics } from 'node:v8';
import { loadMallocTrim } from './malloc-trim';

export interface IdleCollectorOptions {
  /** How long no new request may arrive before the gateway counts as quiet. */
  quietMs: number;
  /** Collect only when the heap holds at least this much more than was live after the last collection. */
  growthBytes: number;
  /** Test seams: the heap's size and its live part, the full collection, malloc's trim, the clock, the timer. */
  heap?: () => { total: number; used: number };
  collect?: () => void;
  trim?: () => void;
  now?: () => number;
  setInterval?: (run: () => void, ms: number) => { unref(): void };
  clearInterval?: (timer: { unref(): void }) => void;
}

export interface IdleCollector {
  /** Call once per request (cheap: a counter). */
  noteRequest(): void;
  stop(): void;
  /** Full collections run so far. */
  readonly collections: number;
}

/**
 * Gives the heap's garbage back once the gateway falls quiet. Under load V8 lets the old
 * generation grow to several times what is live before it collects it (measured here after a
 * minute of streaming: 150 MB of old space, 37 MB of it live, RSS 285 MiB), and while nothing
 * is allocated it does not collect again: the process would keep that memory however long it
 * stays idle. So when no request has arrived for `quietMs` and the heap is `growthBytes`
 * larger than what was live after the last collection, a full collection runs (up to ~0.1 s,
 * while nothing waits; a stream still open meanwhile sees one event a little later). Config
 * `server.idle_gc` (on by default).
 *
 * The collection is followed by glibc's `malloc_trim` where the optional addon is built
 * (malloc-trim.ts), and so is a quiet period after traffic that needed no collection of
 * ours (below): the memory freed by the collection (Buffers, sockets) and by the traffic
 * before it stays in malloc's arenas otherwise, fragmented by the chunks still in use (measured
 * after the benchmark: RSS 170 MiB without the trim, 139 MiB with it).
 *
 * Not sooner than half a minute of quiet: a collection also shrinks the young generation,
 * and traffic that resumes on a small heap pays for regrowing it (measured: ~25% more CPU per
 * request for the first seconds of a burst after a collection made 2 s into a pause).
 */
export function startIdleCollector(options: IdleCollectorOptions): IdleCollector {
  const heap = options.heap ?? v8Heap;
  const collect = options.collect ?? fullCollection();
  const trim = options.trim ?? loadMallocTrim() ?? (() => undefined);
  const now = options.now ?? Date.now;
  const startTimer = options.setInterval ?? ((run: () => void, ms: number) => setInterval(run, ms));
  const stopTimer = options.clearInterval ?? ((timer: { unref(): void }) => clearInterval(timer as NodeJS.Timeout));

  let requests = 0;
  let seen = 0;
  let quietSince = now();
  let liveAfterCollection = heap().used;
  let collections = 0;
  let trimDue = false;
  /** Whether malloc was trimmed since the last request (no traffic yet counts as trimmed). */
  let trimmed = true;

  const timer = startTimer(
    () => {
      if (trimDue) {
        // A tick after the collection: the Buffers it found dead are freed by V8's background
        // sweeper, after the collection itself returned; trimmed before that, their memory would stay.
        trimDue = false;
        trim();
      }
      if (requests !== seen) {
        seen = requests;
        quietSince = now();
        trimmed = false;
        return;
      }
      if (now() - quietSince < options.quietMs) return;
      // The heap's size, not its used part: V8 may have collected the garbage itself and
      // still hold the emptied pages.
      if (heap().total >= liveAfterCollection + options.growthBytes) {
        collect();
        collections++;
        liveAfterCollection = heap().used;
      } else if (trimmed) {
        return;
      }
      // Also without a collection of ours, once per quiet period: V8's memory reducer often
      // shrinks the heap by itself a few seconds after the load stops, and what the traffic
      // freed in malloc's arenas (socket and Buffer memory) is still to be handed back
      // (after the benchmark's scenarios one after the other: RSS once quiet 177 MiB when
      // only a collection of ours led to a trim, 135 MiB with this).
      trimDue = true;
      trimmed = true;
    },
    Math.max(100, Math.min(1_000, Math.floor(options.quietMs / 2))),
  );
  timer.unref();

  return {
    noteRequest() {
      requests++;
    },
    stop() {
      stopTimer(timer);
    },
    get collections() {
      return collections;
    },
  };
}

function v8Heap(): { total: number; used: number } {
  const statistics = getHeapStatistics();
  return { total: statistics.total_heap_size, used: statistics.used_heap_size };
}

/**
 * V8's last-resort collection, as `--expose-gc` gives it (`gc({ type: 'major', flavor:
 * 'last-resort' })`); a no-op without the flag. Serving processes start with it
 * (server/cli/serving-flags.ts, docs/performance.md), and so do the test workers
 * (vitest.config.ts); a program that embeds the gateway without it simply gets no idle
 * collection. The last-resort flavour is the collection V8 runs when memory is short: full
 * collections that compact and shrink the heap, then the emptied pages handed back to the
 * system at once. A plain full collection keeps those pages in V8's pool until its memory
 * reducer runs, seconds later or, with nothing allocating, not at all (docs/performance.md,
 * "Memory").
 */
function fullCollection(): () => void {
  const gc = (globalThis as { gc?: (options?: V8CollectionOptions) => void }).gc;
  if (!gc) return () => undefined;
  return () => gc(LAST_RESORT);
}

/** The options V8's `gc()` takes (its gc extension). */
interface V8CollectionOptions {
  type: 'major' | 'minor';
  execution: 'sync' | 'async';
  flavor: 'regular' | 'last-resort';
}

const LAST_RESORT: V8CollectionOptions = { type: 'major', execution: 'sync', flavor: 'last-resort' };
