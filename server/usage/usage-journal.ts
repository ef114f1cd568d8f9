import fs from 'node:fs';
import path from 'node:path';
import { INTERRUPTED_STATUS, type InFlightUsage, type UsageDurability } from './durability';
import { encodeJournalLine, JOURNAL_HEADER } from './journal-line';
import type { UsageRecorderLogger } from './recorder-options';
import { TurnBatch, type BatchOutcome } from './turn-batch';
import type { UsageEvent, UsageSink } from './types';

/** Segment files: `segment-<sequence>.jsonl`, the sequence zero-padded so names sort in order. */
export const SEGMENT_PATTERN = /^segment-(\d{12})\.jsonl$/;
export const segmentName = (sequence: number): string => `segment-${String(sequence).padStart(12, '0')}.jsonl`;

/** A segment this big starts a new one even while some of its events are not stored yet. */
const DEFAULT_SEGMENT_BYTES = 4 * 1024 * 1024;
/** How often writing is retried after it failed (a full disk). */
const RETRY_MS = 1_000;

export interface UsageJournalOptions {
  /** This instance's journal directory (created if missing); replay has emptied it. */
  directory: string;
  /** Where events go to be stored (the recorder), besides the journal. */
  sink: UsageSink;
  /** Grouped fsync period: bounds what a machine crash (not a process crash) can lose. */
  fsyncIntervalMs: number;
  eventId: () => string;
  logger: UsageRecorderLogger;
  now?: () => number;
  /** First sequence number (after the segments replay found). */
  firstSequence?: number;
  segmentBytes?: number;
  /** Replaces fs.writeSync (tests simulate a full disk). */
  writeSync?: (fd: number, data: Buffer) => number;
}

export interface UsageJournalStats {
  /** Bytes in the journal's segment files. */
  bytes: number;
  /** Events and in-flight calls the journal holds that are not stored yet. */
  pending: number;
  /** Writing fails (a full disk): model calls are refused until it works again. */
  failing: boolean;
}

interface Segment {
  sequence: number;
  file: string;
  fd: number;
  bytes: number;
  /** Calls begun here and not ended in the journal yet, plus events written here and not stored yet. */
  pending: number;
  dirty: boolean;
  syncing: boolean;
  deleted: boolean;
}

/**
 * The append-only local usage journal (docs/usage-durability.md). Every line of one event-loop
 * turn goes to the file in one write (from setImmediate, right after that turn): once written,
 * the bytes are the kernel's and survive the process dying. `finish` resolves then, so the
 * reply's last bytes go out after its usage is safe, without a database round trip. fsync runs
 * every `fsyncIntervalMs` for all of them. Segments are deleted, oldest first, once every
 * event in them is stored and every call begun in them has ended.
 */
export class UsageJournal implements UsageDurability {
  private readonly segments: Segment[] = [];
  private readonly unstored = new Map<string, Segment>();
  private readonly now: () => number;
  private readonly segmentBytes: number;
  private readonly write: (fd: number, data: Buffer) => number;
  private nextSequence: number;
  private buffer = '';
  /** Bytes a failed or short write left unwritten; written first when writing works again. */
  private retained: Buffer | null = null;
  /** Segments whose call ended in the buffered lines: released once those lines are written. */
  private releaseAfterWrite: Segment[] = [];
  /** Calls begun since the last write: their open lines go in the next one. */
  private opening: JournalCall[] = [];
  private readonly batch = new TurnBatch(() => this.flush());
  private failure: unknown = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly fsyncTimer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: UsageJournalOptions) {
    this.now = options.now ?? Date.now;
    this.segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.write = options.writeSync ?? ((fd, data) => fs.writeSync(fd, data));
    this.nextSequence = options.firstSequence ?? 1;
    fs.mkdirSync(options.directory, { recursive: true });
    this.openSegment();
    this.fsyncTimer = setInterval(() => this.syncAll(), options.fsyncIntervalMs);
    this.fsyncTimer.unref();
  }

  available(): boolean {
    return this.failure === null && !this.closed;
  }

  stats(): UsageJournalStats {
    let bytes = 0;
    let pending = 0;
    for (const segment of this.segments) {
      bytes += segment.bytes;
      pending += segment.pending;
    }
    return { bytes, pending, failing: this.failure !== null };
  }

  begin(interrupted: UsageEvent): InFlightUsage {
    const call = new JournalCall(this, this.options.eventId(), interrupted);
    // Its open line is encoded when the turn's lines are written, and not at all when the call
    // ended in that turn already (its event line says all).
    this.opening.push(call);
    this.batch.schedule();
    return call;
  }

  /** A call's `progress` line (JournalCall). */
  checkpoint(id: string, event: UsageEvent): void {
    // Nobody waits for a checkpoint: a write that fails shows in `available()` and in the end's promise.
    this.buffered(encodeJournalLine('progress', id, { ...event, status: INTERRUPTED_STATUS }));
  }

  /** A call ended (JournalCall): its event goes to the recorder and its line to the journal. */
  end(call: JournalCall, event: UsageEvent | null): Promise<void> {
    if (call.opened !== null) this.releaseAfterWrite.push(call.opened);
    if (event === null) {
      // Ended before its open line was written: nothing of it needs writing.
      if (call.opened === null) return DONE;
      return this.append(encodeJournalLine('cancel', call.eventId, null));
    }
    this.options.sink.record(event, call.eventId);
    const segment = this.current();
    segment.pending += 1;
    this.unstored.set(call.eventId, segment);
    return this.append(encodeJournalLine('event', call.eventId, event));
  }

  /** The recorder stored these: their lines are no longer needed. */
  stored(rows: readonly { eventId: string }[]): void {
    for (const row of rows) {
      const segment = this.unstored.get(row.eventId);
      if (segment === undefined) continue;
      this.unstored.delete(row.eventId);
      segment.pending -= 1;
    }
    this.trim();
  }

  /** Writes what is buffered, fsyncs and closes the files; segments with unstored events stay for the next start. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.trim();
    this.closed = true;
    clearInterval(this.fsyncTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    for (const segment of this.segments) {
      try {
        if (segment.dirty) fs.fsyncSync(segment.fd);
      } catch (error) {
        this.options.logger.error({ err: error, file: segment.file }, 'usage journal: fsync at close failed');
      }
      closeQuietly(segment.fd);
    }
    const leftover = this.segments.filter((segment) => segment.pending > 0);
    if (leftover.length > 0) {
      this.options.logger.warn(
        { segments: leftover.map((segment) => segment.file) },
        'usage journal: unstored events kept for the next start',
      );
    } else {
      for (const segment of this.segments) unlinkQuietly(segment.file);
    }
    this.segments.length = 0;
  }

  /** A line for the turn's write; while writing fails, the retry timer writes the buffer. */
  private buffered(line: string): void {
    this.buffer += line;
    if (this.failure === null) this.batch.schedule();
  }

  /** `buffered`, resolved once the line is in the file; while writing fails the caller learns at once. */
  private append(line: string): Promise<void> {
    this.buffered(line);
    return this.failure !== null ? rejected(this.failure) : this.settled();
  }

  /** The open lines of the calls begun since the last write and still going, written first. */
  private openLines(segment: Segment): string {
    let lines = '';
    for (const call of this.opening) {
      const interrupted = call.takeInterrupted();
      if (interrupted === null) continue;
      lines += encodeJournalLine('open', call.eventId, interrupted);
      call.opened = segment;
      segment.pending += 1;
    }
    this.opening = [];
    return lines;
  }

  /** The promise of the next write: resolved once the buffered lines are in the file. */
  settled(): Promise<void> {
    return this.batch.next();
  }

  private flush(): void {
    if (this.closed) return;
    const segment = this.current();
    const text = this.opening.length > 0 ? this.openLines(segment) + this.buffer : this.buffer;
    if (text === '' && this.retained === null) return;
    const fresh = Buffer.from(text);
    const data = this.retained === null ? fresh : Buffer.concat([this.retained, fresh]);
    this.buffer = '';
    const group = this.batch.take();
    let written: number;
    try {
      written = this.write(segment.fd, data);
    } catch (error) {
      this.retained = data;
      this.fail(error, group);
      return;
    }
    segment.bytes += written;
    segment.dirty = true;
    if (written < data.length) {
      this.retained = data.subarray(written);
      this.fail(new Error(`short write to the usage journal (${written} of ${data.length} bytes)`), group);
      return;
    }
    this.retained = null;
    if (this.failure !== null) {
      this.options.logger.error({ file: segment.file }, 'usage journal writable again: model calls accepted');
      this.failure = null;
    }
    for (const opened of this.releaseAfterWrite) opened.pending -= 1;
    this.releaseAfterWrite = [];
    group?.resolve();
    this.trim();
  }

  private fail(error: unknown, group: BatchOutcome | null): void {
    if (this.failure === null) {
      this.options.logger.error(
        { err: error, directory: this.options.directory },
        'usage journal cannot be written: model calls answer 503 usage_unavailable until it can',
      );
    }
    this.failure = error;
    group?.reject(error);
    if (this.retryTimer === null) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.flush();
      }, RETRY_MS);
      this.retryTimer.unref();
    }
  }

  /** Starts a new segment when the current one is done with (or big), deletes finished ones, oldest first. */
  private trim(): void {
    if (this.closed) return;
    const current = this.current();
    const idle = this.buffer === '' && this.opening.length === 0 && this.retained === null && this.releaseAfterWrite.length === 0;
    if (idle && current.bytes > JOURNAL_HEADER.length) {
      // Everything in it is stored: emptied in place (one syscall; appends go to the new end).
      if (current.pending === 0 && this.segments.length === 1) this.truncate(current);
      else if (current.pending === 0 || current.bytes >= this.segmentBytes) this.openSegment();
    }
    while (this.segments.length > 1 && (this.segments[0] as Segment).pending === 0) {
      const oldest = this.segments.shift() as Segment;
      oldest.deleted = true;
      unlinkQuietly(oldest.file);
      if (!oldest.syncing) closeQuietly(oldest.fd);
    }
  }

  private truncate(segment: Segment): void {
    try {
      fs.ftruncateSync(segment.fd, JOURNAL_HEADER.length);
      segment.bytes = JOURNAL_HEADER.length;
    } catch (error) {
      this.options.logger.warn({ err: error, file: segment.file }, 'usage journal: emptying a stored segment failed; starting a new one');
      this.openSegment();
    }
  }

  private openSegment(): void {
    const file = path.join(this.options.directory, segmentName(this.nextSequence));
    this.nextSequence += 1;
    const fd = fs.openSync(file, 'a');
    const header = Buffer.from(JOURNAL_HEADER);
    fs.writeSync(fd, header);
    this.segments.push({
      sequence: this.nextSequence - 1,
      file,
      fd,
      bytes: header.length,
      pending: 0,
      dirty: true,
      syncing: false,
      deleted: false,
    });
    // The new file's name must survive a machine crash too: fsync the directory (off the request path).
    fs.open(this.options.directory, 'r', (openError, directoryFd) => {
      if (openError) return;
      fs.fsync(directoryFd, () => fs.close(directoryFd, () => undefined));
    });
  }

  private syncAll(): void {
    for (const segment of this.segments) {
      if (!segment.dirty || segment.syncing) continue;
      segment.dirty = false;
      segment.syncing = true;
      fs.fsync(segment.fd, (error) => {
        segment.syncing = false;
        if (segment.deleted || this.closed) {
          if (segment.deleted) closeQuietly(segment.fd);
          return;
        }
        if (error) {
          segment.dirty = true;
          this.options.logger.error({ err: error, file: segment.file }, 'usage journal: fsync failed');
        }
      });
    }
  }

  private current(): Segment {
    return this.segments[this.segments.length - 1] as Segment;
  }
}

/** One metered call in the journal: a plain object, its methods shared (it is made on every request). */
class JournalCall implements InFlightUsage {
  /** The segment its open line went to; null until that line is written (or when it never is). */
  opened: Segment | null = null;
  private ended = false;

  constructor(
    private readonly journal: UsageJournal,
    readonly eventId: string,
    private interrupted: UsageEvent | null,
  ) {}

  /** What the open line carries; null once the call ended (no open line needed any more). */
  takeInterrupted(): UsageEvent | null {
    const event = this.ended ? null : this.interrupted;
    this.interrupted = null;
    return event;
  }

  checkpoint(event: UsageEvent): void {
    if (!this.ended) this.journal.checkpoint(this.eventId, event);
  }

  finish(event: UsageEvent): Promise<void> {
    if (this.ended) return this.journal.settled();
    this.ended = true;
    return this.journal.end(this, event);
  }

  cancel(): void {
    if (this.ended) return;
    this.ended = true;
    // Nobody waits for a cancelled call's line: `end`'s promise never rejects unhandled (`rejected`, the batch's shared promise).
    void this.journal.end(this, null);
  }
}

const DONE: Promise<void> = Promise.resolve();

function rejected(error: unknown): Promise<void> {
  const promise = Promise.reject(error);
  promise.catch(() => undefined);
  return promise;
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Already closed.
  }
}

function unlinkQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Already gone.
  }
}
