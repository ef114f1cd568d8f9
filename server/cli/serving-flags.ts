/**
 * Node/V8 options of a serving process, given where it starts (docs/performance.md): the
 * `model-gateway` command's shebang (bin/model-gateway.js) and `npm start` carry them, the
 * cluster primary gives them to its workers (cluster.ts), the benchmark to its gateway. A V8
 * option takes effect reliably only before anything is compiled or allocated, hence not
 * from inside the running process.
 *
 * `--no-allocation-site-pretenuring`: V8 samples, at each young-generation collection, what
 * share of the objects made at each allocation site survived, and from a high share on it
 * allocates that site's objects directly in the old generation. Under load the gateway's
 * request objects (made on arrival, alive across the await of the upstream call, a few
 * milliseconds) are mostly alive when a collection comes, because the requests of one
 * event-loop turn wait for their upstream replies together: V8 then tenures them, and every
 * request pays for it. The tenured objects die young anyway, so the old generation fills with
 * garbage (more full collections), and each store of a young object into one goes through
 * the write barrier into the remembered set, which the next young collection has to scan.
 * Without the pretenuring, young collections cost a request less and the CPU per request is
 * lower (docs/performance.md, "Speed tricks in the code"). Young collections still copy the
 * few objects that live long (queued usage events) to the old generation, as for any object
 * without the hint.
 *
 * `--expose-gc`: the idle collector's full collection (server/memory/idle-collector.ts).
 */
export const SERVING_NODE_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring', '--expose-gc'];

/**
 * glibc malloc settings of a serving process, read by the C library when the process starts
 * (so given as environment variables where it starts: the shebang, `npm start`, the
 * benchmark; the cluster's workers inherit them). Measured with the benchmark's RSS once quiet
 * after the 1,000-stream probe (docs/performance.md, "Memory"):
 *
 * `MALLOC_MMAP_THRESHOLD_=131072`: a fixed threshold. By default glibc raises it (up to
 * 32 MiB) each time a large block obtained with mmap is freed, and its trim threshold with it:
 * from then on the large buffers of a burst (socket reads, request and reply bodies) come from
 * the heap arenas, whose freed pages stay in RSS once the burst is over. Fixed, blocks of
 * 128 KiB and more are mapped and unmapped on their own and the arenas are trimmed at 128 KiB.
 * `MALLOC_ARENA_MAX=2`: at most two arenas for Node's threads (libuv's pool, V8's
 * workers) instead of eight per core, each holding its own freed pages.
 * Together: RSS once quiet 233 → 186 MiB, the peak during the probe 359 → 270 MiB.
 */
export const SERVING_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
};

/** An environment with the serving malloc settings it does not set itself. */
export function withServingEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...SERVING_MALLOC_ENV, ...env };
}

/** `execArgv` with the serving flags it lacks added. */
export function withServingFlags(execArgv: readonly string[]): string[] {
  return [...execArgv, ...SERVING_NODE_FLAGS.filter((flag) => !execArgv.includes(flag))];
}
