import type { Store } from '../db/types';

export interface RetentionOptions {
  retentionDays: number;
  now: () => number;
  onError: (error: unknown) => void;
  onPruned?: (count: number) => void;
  /** How often old raw events are deleted; the daily rollup the report reads is kept. */
  intervalMs?: number;
}

const DAY_MS = 86_400_000;

/**
 * Deletes raw usage events older than the retention setting (`usage.retention_days`), once
 * shortly after start and then periodically. Idempotent: several instances may all run it.
 */
export function startRetention(store: Store, options: RetentionOptions): () => void {
  const prune = async () => {
    try {
      const count = await store.pruneUsageEvents(new Date(options.now() - options.retentionDays * DAY_MS));
      if (count > 0) options.onPruned?.(count);
    } catch (error) {
      options.onError(error);
    }
  };
  const first = setTimeout(() => void prune(), 60_000);
  const timer = setInterval(() => void prune(), options.intervalMs ?? 6 * 3_600_000);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
