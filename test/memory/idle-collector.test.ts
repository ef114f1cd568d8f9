import { describe, expect, it } from 'vitest';
import { startIdleCollector } from '../../server/memory/idle-collector';
import { loadMallocTrim } from '../../server/memory/malloc-trim';

/**
 * The idle collector (server.idle_gc): one full collection once the gateway is quiet after
 * traffic that grew the heap; none while requests keep arriving, none when the heap barely
 * grew, none again until it grows again; malloc trimmed once per quiet period after traffic.
 */
const MiB = 1024 * 1024;

/** A collector on a fake clock and timer; a fake heap too unless `realHeap` (then V8's own, and its real collection). */
function harness({ realHeap = false, quietMs = 2_000, growthBytes = 32 * MiB } = {}) {
  let clock = 0;
  let heap = 40 * MiB;
  let tick: () => void = () => undefined;
  /** What ran, in order: 'collect' and 'trim'. */
  const calls: string[] = [];
  const fakeHeap = {
    heap: () => ({ total: heap, used: heap }),
    collect: () => {
      calls.push('collect');
      heap = 40 * MiB;
    },
    trim: () => {
      calls.push('trim');
    },
  };
  const collector = startIdleCollector({
    quietMs,
    growthBytes,
    now: () => clock,
    ...(realHeap ? {} : fakeHeap),
    setInterval: (run) => {
      tick = run;
      return { unref: () => undefined };
    },
    clearInterval: () => undefined,
  });
  const advance = (ms: number) => {
    for (let elapsed = 0; elapsed < ms; elapsed += 1_000) {
      clock += 1_000;
      tick();
    }
  };
  return { collector, advance, grow: (bytes: number) => (heap += bytes), heap: () => heap, calls };
}

describe('idle collector', () => {
  it('collects once after traffic that grew the heap has stopped for the quiet time, then trims malloc', () => {
    const { collector, advance, grow, heap, calls } = harness();
    for (let second = 0; second < 10; second++) {
      collector.noteRequest();
      grow(10 * MiB);
      advance(1_000);
    }
    expect(collector.collections).toBe(0);
    advance(1_000);
    expect(collector.collections).toBe(0);
    advance(1_000);
    expect(collector.collections).toBe(1);
    expect(heap()).toBe(40 * MiB);
    // The trim waits a tick, for V8's background sweeper to free what the collection found dead.
    expect(calls).toEqual(['collect']);
    advance(1_000);
    expect(calls).toEqual(['collect', 'trim']);
    advance(60_000);
    expect(collector.collections).toBe(1);
    expect(calls).toEqual(['collect', 'trim']);
  });

  it('does not collect while requests keep arriving, nor after traffic that left little garbage', () => {
    const { collector, advance, grow, calls } = harness();
    for (let second = 0; second < 30; second++) {
      collector.noteRequest();
      grow(5 * MiB);
      advance(1_000);
    }
    expect(collector.collections).toBe(0);
    expect(calls).toEqual([]);
    const quiet = harness();
    quiet.collector.noteRequest();
    quiet.grow(1 * MiB);
    quiet.advance(10_000);
    expect(quiet.collector.collections).toBe(0);
  });

  it('trims malloc once quiet after traffic also when the heap has not grown (V8 shrank it by itself), once per quiet period', () => {
    const { collector, advance, calls } = harness();
    // Quiet from the start: nothing to give back.
    advance(10_000);
    expect(calls).toEqual([]);
    collector.noteRequest();
    advance(2_000);
    expect(calls).toEqual([]);
    advance(2_000);
    expect(calls).toEqual(['trim']);
    advance(60_000);
    expect(calls).toEqual(['trim']);
    expect(collector.collections).toBe(0);
    collector.noteRequest();
    advance(10_000);
    expect(calls).toEqual(['trim', 'trim']);
  });

  it('runs a real full collection by default, which gives the garbage back to the system at once', () => {
    const { collector, advance } = harness({ realHeap: true, quietMs: 1_000, growthBytes: 8 * MiB });
    const rssBefore = process.memoryUsage().rss;
    let garbage: { index: number; text: string }[] | null = Array.from({ length: 2_000_000 }, (_, index) => ({
      index,
      text: `item ${index}`,
    }));
    const { heapUsed: withGarbage, rss: rssWithGarbage } = process.memoryUsage();
    expect(garbage.length).toBe(2_000_000);
    // eslint-disable-next-line no-useless-assignment -- dropping the only reference is what makes the array garbage
    garbage = null;
    // One check, a quiet second after the start.
    advance(1_000);
    expect(collector.collections).toBe(1);
    const after = process.memoryUsage();
    expect(after.heapUsed).toBeLessThan(withGarbage - 8 * MiB);
    // The emptied pages leave the process's RSS now, not when V8's memory reducer next runs.
    expect(after.rss - rssBefore).toBeLessThan((rssWithGarbage - rssBefore) / 2);
  });

  // npm install builds the addon on Linux (server/native/malloc-trim/build.mjs); where glibc is
  // the C library it must be there, or the memory after a burst stays in malloc's arenas.
  const glibc =
    process.platform === 'linux' &&
    Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);
  it.runIf(glibc)("has glibc's malloc_trim through the addon built by npm install", () => {
    const trim = loadMallocTrim(new URL('../../server/memory/malloc-trim.ts', import.meta.url).href);
    expect(trim).toBeTypeOf('function');
    expect(typeof trim?.()).toBe('boolean');
  });

  it('runs without the addon where it is not built', () => {
    expect(loadMallocTrim(new URL('file:///nowhere/server/memory/malloc-trim.ts').href)).toBeNull();
  });
});
