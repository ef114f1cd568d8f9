import type { UsageRecorderLogger } from './recorder-options';

interface Outage {
  startedAt: number;
  failures: number;
  lastLoggedAt: number;
  droppedBefore: number;
  writtenSinceRecovery: number;
}

/** What the recorder's counts are when it reports. */
export interface RecorderCounts {
  buffered: number;
  /** Events dropped since the start (buffer overflow, unrecordable events). */
  dropped: number;
}

/**
 * How the usage recorder tells the log about a store outage and a full buffer
 * (docs/usage-durability.md): a line when it starts, then at most one per `repeatLogIntervalMs`
 * while it lasts, and a line when it ends, with what it cost.
 */
export class RecorderIncidentLog {
  private outage: Outage | null = null;
  private unloggedDrops = 0;
  private lastDropLogAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly logger: UsageRecorderLogger,
    private readonly options: { repeatLogIntervalMs: number; maxBufferedEvents: number },
    private readonly now: () => number,
  ) {}

  writeFailed(error: unknown, counts: RecorderCounts): void {
    const now = this.now();
    const outage = this.outage;
    if (outage === null) {
      this.outage = { startedAt: now, failures: 1, lastLoggedAt: now, droppedBefore: counts.dropped, writtenSinceRecovery: 0 };
      this.logger.error({ err: error, buffered: counts.buffered }, 'usage store write failed: keeping usage events in memory and retrying');
      return;
    }
    outage.failures += 1;
    if (now - outage.lastLoggedAt >= this.options.repeatLogIntervalMs) {
      outage.lastLoggedAt = now;
      this.logger.error(
        {
          err: error,
          buffered: counts.buffered,
          failures: outage.failures,
          downForMs: now - outage.startedAt,
          dropped: counts.dropped - outage.droppedBefore,
        },
        'usage store still failing: usage events buffered in memory',
      );
    }
  }

  /** `backlogBelowBatch`: what is left is ordinary buffering, so an outage is over. */
  writeSucceeded(count: number, counts: RecorderCounts & { backlogBelowBatch: boolean }): void {
    // The overflow is over once the buffer is back to half: report the drops not yet logged.
    if (this.unloggedDrops > 0 && counts.buffered <= this.options.maxBufferedEvents / 2) this.logDrops(counts.dropped);
    const outage = this.outage;
    if (outage === null) return;
    outage.writtenSinceRecovery += count;
    if (!counts.backlogBelowBatch) return;
    this.outage = null;
    if (this.unloggedDrops > 0) this.logDrops(counts.dropped);
    this.info(
      {
        written: outage.writtenSinceRecovery,
        failures: outage.failures,
        downForMs: this.now() - outage.startedAt,
        dropped: counts.dropped - outage.droppedBefore,
      },
      'usage store recovered: buffered usage events written',
    );
  }

  /** `removed` of the oldest events dropped for room; logged at most once per interval, the rest later. */
  droppedOldest(removed: number, droppedTotal: number): void {
    this.unloggedDrops += removed;
    if (this.now() - this.lastDropLogAt >= this.options.repeatLogIntervalMs) this.logDrops(droppedTotal);
  }

  /** Reports the drops not logged yet (at a drain). */
  flushDrops(droppedTotal: number): void {
    if (this.unloggedDrops > 0) this.logDrops(droppedTotal);
  }

  info(details: object, message: string): void {
    if (this.logger.info) this.logger.info(details, message);
    else this.logger.warn(details, message);
  }

  private logDrops(droppedTotal: number): void {
    this.logger.error(
      { dropped: this.unloggedDrops, droppedTotal, maxBufferedEvents: this.options.maxBufferedEvents },
      'usage buffer full: the oldest usage events were dropped and will not be billed',
    );
    this.unloggedDrops = 0;
    this.lastDropLogAt = this.now();
  }
}
