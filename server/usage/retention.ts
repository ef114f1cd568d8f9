import type { Store } from '../db/types';
import { DAY_MS } from './shanghai-day';

export interface RetentionOptions {
  retentionDays: number;
  now: () => number;
  onError: (error: unknown) => void;
  onPruned?: (count: number) => void;
  /** How often old raw events are deleted; the daily rollup the report reads is kept. */
  intervalMs?: number;
  /** docs/request-log.md: the request log's retention, and its bodies' shorter one; absent = no request log. */
  requestLog?: {
    retentionDays: number;
    bodiesRetentionDays: number;
    onPruned?: (pruned: { records: number; bodies: number }) => void;
  };
}

/**
 * Deletes raw usage events older than the retention setting (`usage.retention_days`), once
 * shortly after start and then periodically; so too the request log's records older than
 * `request_log.retention_days`, and the bodies older than `request_log.bodies.retention_days`.
 * Idempotent: several instances may all run it.
 */
export function startRetention(store: Store, options: RetentionOptions): () => void {
  const prune = async () => {
    const now = options.now();
    try {
      const count = await store.pruneUsageEvents(new Date(now - options.retentionDays * DAY_MS));
      if (count > 0) options.onPruned?.(count);
    } catch (error) {
      options.onError(error);
    }
    const { requestLog } = options;
    if (requestLog === undefined) return;
    try {
      const pruned = await store.pruneRequestLog(
        new Date(now - requestLog.retentionDays * DAY_MS),
        new Date(now - requestLog.bodiesRetentionDays * DAY_MS),
      );
      if (pruned.records > 0 || pruned.bodies > 0) requestLog.onPruned?.(pruned);
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
