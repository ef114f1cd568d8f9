import fs from 'node:fs';
import path from 'node:path';
import type { Store, UsageEventRow } from '../db/types';
import { CLAIM_FILES } from './directory-claim';
import { INTERRUPTED_CODE, INTERRUPTED_STATUS } from './durability';
import { decodeJournalLine, JOURNAL_HEADER } from './journal-line';
import type { UsageRecorderLogger } from './recorder-options';
import type { UsageEvent } from './types';
import { SEGMENT_PATTERN } from './usage-journal';
import { invalidUsageEventReason, ShanghaiDayCache, toUsageEventRow } from './usage-event-row';

export interface ReplayResult {
  /** Events found in the journal and handed to the store (already stored ones are skipped there). */
  replayed: number;
  /** Calls in flight when the process died, recorded as 499 interrupted. */
  interrupted: number;
  /** Lines that were not whole entries (a torn last line): dropped. */
  torn: number;
  /** Files named like segments that are not ours: renamed to `*.foreign` and left alone. */
  foreign: number;
  /** The sequence number for the next segment. */
  nextSequence: number;
}

export interface ReplayOptions {
  logger: UsageRecorderLogger;
  batchSize: number;
  /** How long to keep retrying a store that fails before giving up (the start fails). */
  retryForMs?: number;
}

interface Call {
  final: UsageEvent | null;
  cancelled: boolean;
  interrupted: UsageEvent | null;
}

/**
 * At start, before the gateway reports ready (docs/usage-durability.md), in a directory this
 * process has claimed (journal-slots.ts): every event left in the journal's segments is written
 * to the store (idempotently: ids already stored are skipped), every call begun but not ended
 * is recorded once as 499 `interrupted` with its last checkpoint, then the segments are
 * deleted. A torn line is dropped and logged; a file that is not ours is renamed aside, never
 * read or deleted.
 */
export async function replayJournal(directory: string, store: Store, options: ReplayOptions): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: 0, interrupted: 0, torn: 0, foreign: 0, nextSequence: 1 };
  let names: string[];
  try {
    names = fs.readdirSync(directory).sort();
  } catch (error) {
    if (isCode(error, 'ENOENT')) return result;
    throw error;
  }
  const calls = new Map<string, Call>();
  const segments: string[] = [];
  for (const name of names) {
    const match = SEGMENT_PATTERN.exec(name);
    if (match === null) {
      if (!name.endsWith('.foreign') && !CLAIM_FILES.has(name))
        options.logger.warn({ directory, file: name }, 'usage journal: a file that is not a journal segment; left alone');
      continue;
    }
    result.nextSequence = Math.max(result.nextSequence, Number(match[1]) + 1);
    const file = path.join(directory, name);
    const text = fs.readFileSync(file, 'utf8');
    if (!text.startsWith(JOURNAL_HEADER)) {
      // Not written by us (or its header itself is torn: then it holds nothing else).
      if (text.length < JOURNAL_HEADER.length && JOURNAL_HEADER.startsWith(text)) {
        segments.push(file);
        continue;
      }
      fs.renameSync(file, `${file}.foreign`);
      result.foreign += 1;
      options.logger.error({ file }, 'usage journal: a segment file that is not ours; renamed to .foreign and left alone');
      continue;
    }
    segments.push(file);
    const lines = text.slice(JOURNAL_HEADER.length).split('\n');
    const tail = lines.pop();
    if (tail !== undefined && tail !== '') {
      result.torn += 1;
      options.logger.warn(
        { file, bytes: Buffer.byteLength(tail) },
        'usage journal: torn last line (the process died while writing it) dropped',
      );
    }
    for (const line of lines) {
      if (line === '') continue;
      const entry = decodeJournalLine(line);
      if (entry === null) {
        result.torn += 1;
        options.logger.warn({ file, line: line.slice(0, 200) }, 'usage journal: unreadable line dropped');
        continue;
      }
      let call = calls.get(entry.id);
      if (call === undefined) {
        call = { final: null, cancelled: false, interrupted: null };
        calls.set(entry.id, call);
      }
      if (entry.type === 'event') call.final = entry.event;
      else if (entry.type === 'cancel') call.cancelled = true;
      else call.interrupted = entry.event;
    }
  }

  const days = new ShanghaiDayCache();
  const rows: UsageEventRow[] = [];
  for (const [id, call] of calls) {
    let event = call.final;
    if (event === null && !call.cancelled && call.interrupted !== null) {
      event = { ...call.interrupted, status: INTERRUPTED_STATUS, errorCode: INTERRUPTED_CODE };
      result.interrupted += 1;
    }
    if (event === null) continue;
    const reason = invalidUsageEventReason(event);
    if (reason !== null) {
      options.logger.error({ eventId: id, reason }, 'usage journal: an event that cannot be stored; dropped');
      continue;
    }
    rows.push(toUsageEventRow(event, days.dayOf(event.receivedAt), id));
  }
  await storeWithRetry(store, rows, options);
  result.replayed = rows.length;
  for (const file of segments) fs.unlinkSync(file);
  if (segments.length > 0 || result.foreign > 0) {
    options.logger.warn({ directory, segments: segments.length, ...result }, 'usage journal replayed');
  }
  return result;
}

async function storeWithRetry(store: Store, rows: UsageEventRow[], options: ReplayOptions): Promise<void> {
  const deadline = Date.now() + (options.retryForMs ?? 60_000);
  for (let start = 0; start < rows.length; start += options.batchSize) {
    const batch = rows.slice(start, start + options.batchSize);
    for (let attempt = 1; ; attempt += 1) {
      try {
        await store.recordUsage(batch);
        break;
      } catch (error) {
        if (Date.now() >= deadline)
          throw new Error('usage journal replay: the database refused the journaled events; they are kept for the next start', {
            cause: error,
          });
        options.logger.error({ err: error, attempt }, 'usage journal replay: database write failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, 5_000)));
      }
    }
  }
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
