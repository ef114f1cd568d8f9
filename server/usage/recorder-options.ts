import type { UsageEventRow } from '../db/types';
import { newUsageEventId } from './usage-event-id';

/** pino's Logger fits this; only what the usage recorder uses. */
export interface UsageRecorderLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
  info?(details: object, message: string): void;
}

export type SetTimer = (callback: () => void, delayMs: number) => unknown;
export type ClearTimer = (handle: unknown) => void;

export interface UsageRecorderOptions {
  /** Longest time an event waits in the buffer before a write starts (at most 1000). */
  flushIntervalMs: number;
  /** Most events per `store.recordUsage` call (one transaction). */
  batchSize: number;
  /** Memory bound: beyond it the oldest events are dropped. At least `batchSize`. */
  maxBufferedEvents: number;
  logger: UsageRecorderLogger;
  now?: () => number;
  /** Backoff between retries while the store fails: doubles from initial up to max, with jitter. */
  retry?: { initialDelayMs: number; maxDelayMs: number };
  /** How often an ongoing outage or ongoing drops are logged again (default 10 s). */
  repeatLogIntervalMs?: number;
  /** For the jitter; [0, 1). */
  random?: () => number;
  /** A new unique usage event id (default: newUsageEventId, time-ordered). */
  eventId?: () => string;
  setTimer?: SetTimer;
  clearTimer?: ClearTimer;
  /** Called after each batch is stored (the journal trims what is stored: docs/usage-durability.md). */
  onStored?: (rows: readonly UsageEventRow[]) => void;
}

export interface UsageRecorderStats {
  /** Events held in memory, including a batch being written. */
  buffered: number;
  written: number;
  /** Events given up on while running: the oldest on buffer overflow, and invalid events. */
  dropped: number;
  /** Events still unwritten when a drain's deadline passed. */
  lost: number;
  /** The last write failed (the store is down or refusing). */
  failing: boolean;
}

export interface UsageRecorderPressure {
  /** Age of the oldest event held (queued or being written); 0 when none. */
  oldestBufferedMs: number;
  /** Writes attempted (batches), successful or not. */
  writes: number;
  /** Time spent in those writes. */
  writeMs: number;
}

export type ResolvedRecorderOptions = Required<UsageRecorderOptions>;

const DEFAULT_RETRY = { initialDelayMs: 100, maxDelayMs: 5_000 };
const DEFAULT_REPEAT_LOG_INTERVAL_MS = 10_000;

/** Validates (a misconfigured recorder fails at startup, not at the first outage) and fills defaults. */
export function resolveRecorderOptions(options: UsageRecorderOptions): ResolvedRecorderOptions {
  const { flushIntervalMs, batchSize, maxBufferedEvents } = options;
  if (!(flushIntervalMs > 0 && flushIntervalMs <= 1000)) {
    throw new RangeError(`flushIntervalMs must be in (0, 1000], got ${flushIntervalMs}`);
  }
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  }
  if (!Number.isInteger(maxBufferedEvents) || maxBufferedEvents < batchSize) {
    throw new RangeError(`maxBufferedEvents must be an integer >= batchSize, got ${maxBufferedEvents}`);
  }
  const retry = options.retry ?? DEFAULT_RETRY;
  const now = options.now ?? Date.now;
  if (!(retry.initialDelayMs > 0 && retry.maxDelayMs >= retry.initialDelayMs)) {
    throw new RangeError('retry needs 0 < initialDelayMs <= maxDelayMs');
  }
  return {
    flushIntervalMs,
    batchSize,
    maxBufferedEvents,
    logger: options.logger,
    retry,
    repeatLogIntervalMs: options.repeatLogIntervalMs ?? DEFAULT_REPEAT_LOG_INTERVAL_MS,
    now,
    random: options.random ?? Math.random,
    eventId: options.eventId ?? (() => newUsageEventId(now())),
    // Looked up at call time, so fake timers installed after construction still apply.
    setTimer: options.setTimer ?? ((callback, delayMs) => setTimeout(callback, delayMs)),
    clearTimer: options.clearTimer ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>)),
    onStored: options.onStored ?? (() => undefined),
  };
}
