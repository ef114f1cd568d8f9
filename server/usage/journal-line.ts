import type { UsageEvent } from './types';

/**
 * One line of the usage journal (docs/usage-durability.md): JSON, one object per line, with a
 * format version. The event is carried whole, as the recorder receives it, so fields added to
 * UsageEvent pass through without a change here; bigint values (exact costs) are written as
 * decimal strings and their keys listed in `b`.
 *
 * - `open`: a metered call started; `event` is what to bill if the process dies before it ends
 *   (status 499, the prompt estimate);
 * - `progress`: a stream's checkpoint, the same but with the tokens known so far;
 * - `event`: the call's usage event (what the recorder stores);
 * - `cancel`: the call ended without a usage event (refused by the gateway).
 */
export const JOURNAL_VERSION = 1;
/** The first line of every segment file: tells our files from anything else in the directory. */
export const JOURNAL_HEADER = `{"journal":"model-gateway usage","v":${JOURNAL_VERSION}}\n`;

export type JournalEntryType = 'open' | 'progress' | 'event' | 'cancel';

export interface JournalEntry {
  type: JournalEntryType;
  /** The usage event id: the same on every line of one call, and the stored event's id. */
  id: string;
  event: UsageEvent | null;
}

/** The line of an entry, newline included. */
export function encodeJournalLine(type: JournalEntryType, id: string, event: UsageEvent | null): string {
  if (event === null) return `{"v":${JOURNAL_VERSION},"t":"${type}","id":${JSON.stringify(id)}}\n`;
  // A shallow copy and one JSON.stringify: about 1.4 times a bare stringify of the event.
  const plain: Record<string, unknown> = { ...event };
  let bigints = '';
  for (const key in plain) {
    const value = plain[key];
    if (typeof value === 'bigint') {
      plain[key] = value.toString();
      bigints += (bigints === '' ? '' : ',') + JSON.stringify(key);
    }
  }
  return `{"v":${JOURNAL_VERSION},"t":"${type}","id":${JSON.stringify(id)},"b":[${bigints}],"e":${JSON.stringify(plain)}}\n`;
}

const BREAKDOWN_FIELDS = ['cachedTokens', 'cacheWriteTokens', 'cacheWrite1hTokens', 'reasoningTokens'] as const;

const TYPES: ReadonlySet<string> = new Set<JournalEntryType>(['open', 'progress', 'event', 'cancel']);

/** The entry of one line (without its newline), or null when it is not a whole line of ours. */
export function decodeJournalLine(line: string): JournalEntry | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isRecord(parsed) || parsed.v !== JOURNAL_VERSION || typeof parsed.t !== 'string' || !TYPES.has(parsed.t)) return null;
  if (typeof parsed.id !== 'string' || parsed.id.length === 0) return null;
  const type = parsed.t as JournalEntryType;
  if (type === 'cancel') return { type, id: parsed.id, event: null };
  const fields = parsed.e;
  const bigints = parsed.b;
  if (!isRecord(fields) || !Array.isArray(bigints)) return null;
  const event: Record<string, unknown> = { ...fields };
  for (const key of bigints) {
    const value = typeof key === 'string' ? event[key] : undefined;
    if (typeof value !== 'string' || !/^-?\d+$/.test(value)) return null;
    event[key as string] = BigInt(value);
  }
  // A line written before the usage breakdown existed: nothing of its prompt was cached.
  for (const key of BREAKDOWN_FIELDS) if (event[key] === undefined) event[key] = 0;
  if (!looksLikeUsageEvent(event)) return null;
  return { type, id: parsed.id, event };
}

/** The fields the store needs; the recorder's own validation runs on replay as on any event. */
function looksLikeUsageEvent(value: Record<string, unknown>): value is Record<string, unknown> & UsageEvent {
  return (
    typeof value.requestId === 'string' &&
    typeof value.accountId === 'string' &&
    typeof value.keyId === 'string' &&
    typeof value.model === 'string' &&
    typeof value.provider === 'string' &&
    typeof value.receivedAt === 'number' &&
    typeof value.promptTokens === 'number' &&
    typeof value.completionTokens === 'number' &&
    typeof value.costFemtoUsd === 'bigint' &&
    typeof value.status === 'number'
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
