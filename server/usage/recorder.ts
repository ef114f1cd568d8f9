import type { RequestLogRow, Store, UsageEventRow } from '../db/types';
import type { RequestLogSink } from '../request-log/request-record';
import { EventQueue } from './event-queue';
import { RecorderIncidentLog } from './recorder-incident-log';
import {
  resolveRecorderOptions,
  type ResolvedRecorderOptions,
  type UsageRecorderLogger,
  type UsageRecorderOptions,
  type UsageRecorderPressure,
  type UsageRecorderStats,
} from './recorder-options';
import type { UsageEvent, UsageSink } from './types';
import { invalidUsageEventReason, ShanghaiDayCache, toUsageEventRow } from './usage-event-row';
import { WriteTimer } from './write-timer';

export type { UsageRecorderLogger, UsageRecorderOptions, UsageRecorderPressure, UsageRecorderStats } from './recorder-options';

/** docs/request-log.md: the most request records kept in memory while the database cannot be written. */
const MAX_BUFFERED_REQUESTS = 100_000;

type AttemptResult = { ok: true } | { ok: false; error: unknown };

/**
 * The buffered, batched usage writer (docs/usage-durability.md). `record` only queues; writes
 * happen in the background, one batch at a time and in order, each batch one `recordUsage`
 * transaction. A failed write goes back to the head of the queue and is retried; an event is
 * never handed to the store again after a successful write. A write that failed may still
 * have committed (the connection dropped during COMMIT): each event gets its id here, once,
 * so the retry carries the same ids and the store skips the events it already holds.
 * The request log's records (docs/request-log.md) ride along: each write takes the records
 * queued so far into the same transaction. They are kept in memory only (not journaled): a
 * crash loses the records not yet written, never usage.
 */
export class UsageRecorder implements UsageSink, RequestLogSink {
  private readonly store: Store;
  private readonly options: ResolvedRecorderOptions;
  private readonly logger: UsageRecorderLogger;
  private readonly batchSize: number;
  private readonly now: () => number;
  private readonly timer: WriteTimer;

  private readonly queue = new EventQueue<UsageEventRow>();
  /** The request log's records waiting for the next write. */
  private requests: RequestLogRow[] = [];
  private readonly days = new ShanghaiDayCache();
  /** Lower bound of when the oldest queued event arrived; null when the queue is empty. */
  private pendingSince: number | null = null;
  private inFlight: UsageEventRow[] | null = null;
  /** Lower bound of when the oldest event of the batch being written arrived. */
  private inFlightSince = 0;
  /** Set when a drain gave up on the batch being written: counted lost, never put back. */
  private inFlightAbandoned = false;

  private written = 0;
  private writes = 0;
  private writeMs = 0;
  private dropped = 0;
  private lost = 0;
  private failing = false;
  private consecutiveFailures = 0;
  private readonly incidents: RecorderIncidentLog;

  private running = false;
  private cycleQueued = false;
  private cycleActive = false;
  /** Serializes writes: background cycles, flush() and drain() never overlap. */
  private lock: Promise<void> = Promise.resolve();

  constructor(store: Store, options: UsageRecorderOptions) {
    this.store = store;
    this.options = resolveRecorderOptions(options);
    this.logger = this.options.logger;
    this.batchSize = this.options.batchSize;
    this.now = this.options.now;
    this.timer = new WriteTimer(this.options.setTimer, this.options.clearTimer, this.now, () => this.onTimer());
    this.incidents = new RecorderIncidentLog(this.logger, this.options, this.now);
  }

  /** On the request path: O(1), never throws, never waits for the store. */
  record(event: UsageEvent, eventId?: string): void {
    let row: UsageEventRow;
    try {
      const reason = invalidUsageEventReason(event);
      if (reason !== null) {
        this.refuse(event, reason);
        return;
      }
      row = toUsageEventRow(event, this.days.dayOf(event.receivedAt), eventId ?? this.options.eventId());
    } catch (error) {
      this.refuse(event, error);
      return;
    }
    try {
      if (this.pending() === 0) this.pendingSince = this.now();
      this.queue.push(row);
      const excess = this.queue.length + this.inFlightCount() - this.options.maxBufferedEvents;
      if (excess > 0) this.dropOldest(excess);
      // A running or queued cycle looks at the queue again when its write ends.
      if (this.running && !this.failing && !this.cycleQueued && !this.cycleActive) {
        if (this.queue.length >= this.batchSize) this.timer.schedule(0);
        else if (this.pending() === 1) this.timer.schedule(this.options.flushIntervalMs);
      }
    } catch (error) {
      this.logQuietly({ err: error }, 'usage recorder could not schedule a write');
    }
  }

  /** On the request path: O(1), never throws; written with the next usage batch (or alone). */
  recordRequest(record: RequestLogRow): void {
    try {
      if (this.queue.length === 0 && this.requests.length === 0) this.pendingSince = this.now();
      this.requests.push(record);
      // Records are not usage: past their own cap (the database down for long) the oldest tenth goes.
      const cap = Math.min(this.options.maxBufferedEvents, MAX_BUFFERED_REQUESTS);
      if (this.requests.length > cap) this.requests.splice(0, Math.ceil(cap / 10));
      if (this.running && !this.failing && !this.cycleQueued && !this.cycleActive && this.pending() === 1) {
        this.timer.schedule(this.options.flushIntervalMs);
      }
    } catch (error) {
      this.logQuietly({ err: error }, 'request log: a record could not be queued');
    }
  }

  stats(): UsageRecorderStats {
    return {
      buffered: this.queue.length + this.inFlightCount(),
      written: this.written,
      dropped: this.dropped,
      lost: this.lost,
      failing: this.failing,
    };
  }

  /** How hard the writer works: the database falling behind shows here before the buffer grows (docs/usage-durability.md, "Metrics"). */
  pressure(): UsageRecorderPressure {
    const since = Math.min(this.pendingSince ?? Infinity, this.inFlight === null ? Infinity : this.inFlightSince);
    return { oldestBufferedMs: Number.isFinite(since) ? Math.max(0, this.now() - since) : 0, writes: this.writes, writeMs: this.writeMs };
  }

  /** Starts background writing (also after a drain). Events recorded before are kept. */
  start(): void {
    if (this.running) return;
    this.running = true;
    if (this.failing) this.scheduleRetry();
    else this.rearm();
  }

  /** Writes everything buffered now, once each batch; rejects with the store's error. */
  flush(): Promise<void> {
    return this.exclusive(async () => {
      let remaining = Math.max(this.queue.length, this.requests.length);
      while (remaining > 0 && this.pending() > 0) {
        const size = Math.min(this.batchSize, remaining);
        const result = await this.attempt(size);
        if (!result.ok) {
          this.scheduleRetry();
          throw result.error;
        }
        remaining -= size;
      }
      this.rearm();
    });
  }

  /**
   * For SIGTERM: stops background writing, then writes everything buffered, retrying failures
   * until `timeoutMs` has passed. What is unwritten by then is discarded and reported as lost.
   * `record` keeps accepting events afterwards; another drain (or start) writes them.
   */
  async drain(timeoutMs: number): Promise<{ written: number; lost: number }> {
    this.running = false;
    this.timer.cancel();
    const writtenBefore = this.written;
    const deadline = this.now() + timeoutMs;
    const session = { expired: false };
    let expiryTimer: unknown = null;
    const expiry = new Promise<void>((resolve) => {
      expiryTimer = this.options.setTimer(resolve, Math.max(0, timeoutMs));
    });
    const work = this.exclusive(() => this.drainLoop(deadline, session)).catch((error: unknown) => {
      this.logger.error({ err: error }, 'usage recorder drain failed');
    });
    await Promise.race([work, expiry]);
    this.options.clearTimer(expiryTimer);
    session.expired = true;

    // A write still running at the deadline (a hung store) counts as lost; if it later
    // succeeds, stats().written and stats().lost are corrected, never the returned numbers.
    // A batch abandoned by an earlier drain was already counted.
    const lost = this.queue.length + (this.inFlightAbandoned ? 0 : this.inFlightCount());
    if (this.inFlight !== null) this.inFlightAbandoned = true;
    this.queue.clear();
    this.requests = [];
    this.pendingSince = null;
    this.lost += lost;
    const written = this.written - writtenBefore;
    this.incidents.flushDrops(this.dropped);
    if (lost > 0) {
      this.logger.error(
        { lost, written, timeoutMs, dropped: this.dropped },
        'usage recorder drain: events could not be written before the deadline and are lost',
      );
    } else {
      this.incidents.info({ written }, 'usage recorder drained');
    }
    return { written, lost };
  }

  private async drainLoop(deadline: number, session: { expired: boolean }): Promise<void> {
    while (!session.expired && this.pending() > 0 && this.now() < deadline) {
      const result = await this.attempt(this.batchSize);
      if (result.ok) continue;
      const wait = Math.min(this.retryDelay(), deadline - this.now());
      if (wait <= 0 || session.expired) return;
      await new Promise<void>((resolve) => this.options.setTimer(resolve, wait));
    }
  }

  private async backgroundCycle(): Promise<void> {
    // A cycle started while failing is the retry: it writes the head batch whether due or not.
    let retrying = this.failing;
    while (this.running && this.pending() > 0 && (retrying || this.isDue())) {
      retrying = false;
      const result = await this.attempt(this.batchSize);
      if (!result.ok) {
        this.scheduleRetry();
        return;
      }
    }
    this.rearm();
  }

  /** Writes one batch from the head. Call only inside `exclusive`. */
  private async attempt(size: number): Promise<AttemptResult> {
    const since = this.pendingSince ?? this.now();
    const batch = this.queue.take(size);
    const requests = this.requests.length <= size ? this.requests : this.requests.slice(0, size);
    this.requests = this.requests.length <= size ? [] : this.requests.slice(size);
    if (this.pending() === 0) this.pendingSince = null;
    this.inFlight = batch;
    this.inFlightSince = since;
    this.inFlightAbandoned = false;
    const started = this.now();
    try {
      // Inside the try: a store that throws synchronously is a failed write, not a crash.
      await this.store.recordUsage(batch, requests);
    } catch (error) {
      this.countWrite(started);
      const abandoned = this.inFlightAbandoned;
      this.inFlight = null;
      this.inFlightAbandoned = false;
      if (!abandoned) {
        this.queue.putBack(batch);
        if (requests.length > 0) this.requests = requests.concat(this.requests);
        this.pendingSince = this.pendingSince === null ? since : Math.min(this.pendingSince, since);
      }
      this.noteFailure(error);
      return { ok: false, error };
    }
    this.countWrite(started);
    const abandoned = this.inFlightAbandoned;
    this.inFlight = null;
    this.inFlightAbandoned = false;
    if (abandoned) {
      this.lost -= batch.length;
      this.incidents.info({ written: batch.length }, 'a usage write that outlasted the drain deadline completed after all');
    }
    this.noteSuccess(batch.length);
    if (batch.length > 0) this.notifyStored(batch);
    return { ok: true };
  }

  private countWrite(started: number): void {
    this.writes += 1;
    this.writeMs += Math.max(0, this.now() - started);
  }

  private notifyStored(batch: readonly UsageEventRow[]): void {
    try {
      this.options.onStored(batch);
    } catch (error) {
      this.logQuietly({ err: error }, 'usage recorder: the stored-events callback failed');
    }
  }

  private noteFailure(error: unknown): void {
    this.failing = true;
    this.consecutiveFailures += 1;
    this.incidents.writeFailed(error, { buffered: this.stats().buffered, dropped: this.dropped });
  }

  private noteSuccess(count: number): void {
    this.written += count;
    this.failing = false;
    this.consecutiveFailures = 0;
    this.incidents.writeSucceeded(count, {
      buffered: this.stats().buffered,
      dropped: this.dropped,
      backlogBelowBatch: this.queue.length < this.batchSize,
    });
  }

  private dropOldest(count: number): void {
    const removed = this.queue.dropOldest(count);
    this.dropped += removed;
    this.incidents.droppedOldest(removed, this.dropped);
  }

  private refuse(event: UsageEvent, reason: unknown): void {
    this.dropped += 1;
    const requestId = typeof event === 'object' && event !== null ? event.requestId : undefined;
    this.logQuietly(
      reason instanceof Error ? { err: reason, requestId } : { reason, requestId },
      'usage event dropped: it cannot be recorded',
    );
  }

  private logQuietly(details: object, message: string): void {
    try {
      this.logger.error(details, message);
    } catch {
      // Nothing may escape to the request path, not even a failing logger.
    }
  }

  /** Usage events and request records waiting for a write. */
  private pending(): number {
    return this.queue.length + this.requests.length;
  }

  private isDue(): boolean {
    if (this.queue.length >= this.batchSize || this.requests.length >= this.batchSize) return true;
    return this.pendingSince !== null && this.now() - this.pendingSince >= this.options.flushIntervalMs;
  }

  /** Arms the timer for the next write the queue needs (not while failing: the retry timer rules). */
  private rearm(): void {
    if (!this.running || this.failing || this.pending() === 0) return;
    if (this.queue.length >= this.batchSize || this.requests.length >= this.batchSize || this.pendingSince === null) {
      this.timer.schedule(0);
      return;
    }
    this.timer.schedule(Math.max(0, this.pendingSince + this.options.flushIntervalMs - this.now()));
  }

  private scheduleRetry(): void {
    if (!this.running) return;
    this.timer.reschedule(this.retryDelay());
  }

  /** Exponential backoff with "equal jitter": between half and all of the capped delay. */
  private retryDelay(): number {
    const exponent = Math.min(Math.max(0, this.consecutiveFailures - 1), 30);
    const capped = Math.min(this.options.retry.maxDelayMs, this.options.retry.initialDelayMs * 2 ** exponent);
    return capped / 2 + (this.options.random() * capped) / 2;
  }

  private onTimer(): void {
    if (this.cycleQueued) return;
    this.cycleQueued = true;
    this.exclusive(async () => {
      this.cycleQueued = false;
      this.cycleActive = true;
      try {
        await this.backgroundCycle();
      } finally {
        this.cycleActive = false;
      }
    }).catch((error: unknown) => {
      this.logger.error({ err: error }, 'usage recorder background write cycle failed');
    });
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.lock.then(task);
    this.lock = run.then(ignore, ignore);
    return run;
  }

  private inFlightCount(): number {
    return this.inFlight === null ? 0 : this.inFlight.length;
  }
}

function ignore(): void {}
