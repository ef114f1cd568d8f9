import type pg from 'pg';
import { DAY_MS, formatDay, parseDay } from '../usage/shanghai-day';
import { KeyIdTable } from './key-id-table';
import { exactInteger } from './rows';
import type { KeyDayVisitor } from './types';

export type KeyDayUsageQuery = (accountId: string, startDay: string, endDay: string, visit: KeyDayVisitor) => Promise<void>;

/*
 * The usage report's read (docs/performance.md, "Usage writes and the usage report"): every
 * rollup row of one account in a range of up to 92 days, i.e. up to 92 x its keys rows (70,000
 * for an account of 1,000 keys), handed to the report row by row as plain values: no object per
 * row on the way.
 *
 * Each rollup row carries itself as text, computed by the database when the row is written
 * (the generated column "report_row", migration 0011): "<length of the key id>,<key id>,<day>,
 * <requests>,<prompt tokens>,<completion tokens>,<nano-dollars>,<femto remainder>" (the length
 * makes any key id safe to read). Both databases read the texts of the range from the index by
 * account and day alone, which carries them, and join them with ";" in no particular order: the
 * report places each day by its offset. Formatting the values at read time was two thirds of
 * Postgres's work for the read; a result row per rollup row cost the driver an array and seven
 * values each. The joined text is read here in one pass.
 */
const POSTGRES_STATEMENT = {
  // Named: each pooled connection parses and plans it once.
  name: 'gateway_key_day_usage',
  text: `SELECT string_agg("report_row", ';') FROM "usage_daily" WHERE "account_id" = $1 AND "day" >= $2 AND "day" <= $3`,
  rowMode: 'array' as const,
  // Read as Postgres sent it, whatever pg.types says.
  types: { getTypeParser: () => (text: string) => text },
};

/** SQLite's read of the same text (parameters: account, first day, last day). */
export const SQLITE_KEY_DAY_USAGE_SQL = `SELECT group_concat("report_row", ';') FROM "usage_daily" WHERE "account_id" = ? AND "day" >= ? AND "day" <= ?`;

/**
 * Days per statement: a long range is read as several statements at once, each on a connection
 * of its own, so that Postgres writes their texts in parallel while this process reads the ones
 * already there (a 92-day report: 4 statements). Each row is in exactly one of them.
 */
const POSTGRES_DAYS_PER_STATEMENT = 23;

/** Postgres: the pg pool the Prisma adapter runs on. */
export function keyDayUsageThroughPg(pool: pg.Pool): KeyDayUsageQuery {
  return async (accountId, startDay, endDay, visit) => {
    const texts: Array<Promise<pg.QueryResult<[string | null]>>> = [];
    for (const [from, to] of dayChunks(startDay, endDay, POSTGRES_DAYS_PER_STATEMENT)) {
      texts.push(pool.query<[string | null]>({ ...POSTGRES_STATEMENT, values: [accountId, from, to] }));
    }
    // Every statement's failure is handled, also of those after one that failed.
    const settled = texts.map((text) =>
      text.then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      ),
    );
    const keyIds = new KeyIdTable();
    const days = new RangeDays(startDay, endDay);
    for (const outcome of settled) {
      const done = await outcome;
      if ('error' in done) throw done.error;
      visitAccountDays(done.result.rows[0]?.[0] ?? null, days, visit, keyIds);
    }
  };
}

/** [startDay, endDay] as consecutive ranges of at most `days` days. */
export function dayChunks(startDay: string, endDay: string, days: number): Array<[string, string]> {
  const first = rangeDay(startDay);
  const last = rangeDay(endDay);
  const chunks: Array<[string, string]> = [];
  for (let from = first; from <= last; from += days) chunks.push([formatDay(from), formatDay(Math.min(last, from + days - 1))]);
  return chunks;
}

/** SQLite: the joined text of SQLITE_KEY_DAY_USAGE_SQL (null for no rows) to the visitor. */
export function visitSqliteText(text: string | null, startDay: string, endDay: string, visit: KeyDayVisitor): void {
  visitAccountDays(text, new RangeDays(startDay, endDay), visit, new KeyIdTable());
}

const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const ZERO = 0x30;
const MINUS = 0x2d;
/** Up to 15 digits, digit by digit arithmetic is exact (below 2^53) and equals Number(text). */
const EXACT_DIGITS = 15;

/**
 * The database's text (see above) to the visitor, row by row, each value as dailyUsage reads it, in
 * one pass over the text's UTF-8 bytes (each integer read where it is found; indexing a byte
 * array costs half of charCodeAt on the string); `keyIds` numbers the key ids, for every
 * statement of the read.
 */
export function visitAccountDays(text: string | null, days: RangeDays, visit: KeyDayVisitor, keyIds: KeyIdTable): void {
  if (text === null || text === '') return;
  const bytes = Buffer.from(text, 'utf8');
  const end = bytes.length;
  // Both databases count a key id's length in code points; in a text of ASCII alone each is one
  // byte, and the key id's end needs no walk through its characters.
  const oneBytePerCodePoint = end === text.length;
  const row = new RowReader(bytes);
  while (row.at < end) {
    const characters = row.integer(COMMA);
    const keyStart = row.at;
    const keyEnd = oneBytePerCodePoint ? keyStart + characters : endOfCodePoints(bytes, keyStart, characters);
    if (keyEnd > end || bytes[keyEnd] !== COMMA || bytes[keyEnd + 11] !== COMMA) {
      throw new Error(`unexpected usage row text for key ${bytes.toString('utf8', keyStart, keyEnd)}`);
    }
    const keyNumber = keyIds.find(bytes, keyStart, keyEnd);
    const dayOffset = days.offsetAt(bytes, keyEnd + 1);
    row.at = keyEnd + 12;
    const requests = row.integer(COMMA);
    const promptTokens = row.integer(COMMA);
    const completionTokens = row.integer(COMMA);
    const costNanoUsd = row.exactInteger(COMMA);
    const costFemtoRemainder = row.integer(SEMICOLON);
    visit(keyIds.ids[keyNumber] as string, dayOffset, requests, promptTokens, completionTokens, costNanoUsd, costFemtoRemainder, keyNumber);
  }
}

/** Where `count` code points from `start` end in UTF-8 `bytes` (each lead byte tells its length). */
function endOfCodePoints(bytes: Buffer, start: number, count: number): number {
  let at = start;
  for (let left = count; left > 0; left -= 1) {
    const lead = bytes[at] ?? 0;
    at += lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
  }
  return at;
}

/** Reads the integers of the row text one after the other, each up to its delimiter. */
class RowReader {
  /** Where the next value starts. */
  at = 0;

  constructor(private readonly bytes: Buffer) {}

  /**
   * The integer from `at` to `delimiter` (the row's last value: to a semicolon or the text's
   * end) as Number() reads it; `at` moves past the delimiter.
   */
  integer(delimiter: number): number {
    const bytes = this.bytes;
    const start = this.at;
    const negative = bytes[start] === MINUS;
    let at = negative ? start + 1 : start;
    let value = 0;
    for (; at < bytes.length; at += 1) {
      const digit = (bytes[at] as number) - ZERO;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
    }
    this.endAt(at, delimiter);
    // Up to 15 digits, digit by digit arithmetic is exact (below 2^53) and equals Number(text).
    if (at - start > EXACT_DIGITS || at === start) return Number(bytes.toString('latin1', start, at));
    return negative ? -value : value;
  }

  /** The same, exact beyond 2^53 (a bigint then). */
  exactInteger(delimiter: number): number | bigint {
    const start = this.at;
    const value = this.integer(delimiter);
    return this.at - 1 - start > EXACT_DIGITS ? exactInteger(this.bytes.toString('latin1', start, this.at - 1)) : value;
  }

  private endAt(at: number, delimiter: number): void {
    const code = this.bytes[at];
    if (code !== delimiter && !(delimiter === SEMICOLON && at === this.bytes.length)) {
      throw new Error(`expected an integer from the database, got ${this.bytes.toString('utf8', this.at, at + 1)}`);
    }
    this.at = at + 1;
  }
}

/** How many of a range's days (from its first) RangeDays looks up: fewer than 3 years. */
const LOOKED_UP_DAYS = 400;

/**
 * A row's day as its offset from the range's first day: a day of the range (its first 400) looked
 * up by year, month and day in a table made once per read, any other computed (dayNumber).
 */
export class RangeDays {
  private readonly firstDay: number;
  private readonly firstYear: number;
  /** Per (year - firstYear) * 416 + month * 32 + day: its offset, or -1. */
  private readonly offsets: Int16Array;

  constructor(startDay: string, endDay: string) {
    this.firstDay = rangeDay(startDay);
    this.firstYear = new Date(this.firstDay * DAY_MS).getUTCFullYear();
    this.offsets = new Int16Array(416 * 3).fill(-1);
    const count = Math.min(LOOKED_UP_DAYS, rangeDay(endDay) - this.firstDay + 1);
    for (let offset = 0; offset < count; offset += 1) {
      const date = new Date((this.firstDay + offset) * DAY_MS);
      const slot = this.slotOf(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
      if (slot >= 0) this.offsets[slot] = offset;
    }
  }

  /** The offset of the YYYY-MM-DD at `start` in `bytes`. */
  offsetAt(bytes: Buffer, start: number): number {
    const slot = this.slotOf(
      digitsAt(bytes, start, start + 4),
      digitsAt(bytes, start + 5, start + 7),
      digitsAt(bytes, start + 8, start + 10),
    );
    const offset = slot >= 0 ? (this.offsets[slot] as number) : -1;
    return offset >= 0 && bytes[start + 4] === MINUS && bytes[start + 7] === MINUS ? offset : dayNumber(bytes, start) - this.firstDay;
  }

  private slotOf(year: number, month: number, day: number): number {
    const years = year - this.firstYear;
    return years >= 0 && years < 3 && month <= 12 && day <= 31 ? years * 416 + month * 32 + day : -1;
  }
}

/** A range's first or last day (YYYY-MM-DD, checked by the report) as its day number. */
function rangeDay(day: string): number {
  const number = parseDay(day);
  if (number === null) throw new Error(`expected a day of the report's range, got ${day}`);
  return number;
}

/** The digits in [start, end) as a number: an error for anything but digits. */
function digitsAt(bytes: Buffer, start: number, end: number): number {
  let value = 0;
  for (let index = start; index < end; index += 1) {
    const digit = (bytes[index] ?? 0) - ZERO;
    if (digit < 0 || digit > 9) throw new Error(`expected a day from the database, got ${bytes.toString('utf8', start, end)}`);
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The YYYY-MM-DD at `start` as days since 1970-01-01 (the proleptic Gregorian calendar's
 * days-from-civil in integer arithmetic: http://howardhinnant.github.io/date_algorithms.html).
 */
function dayNumber(bytes: Buffer, start: number): number {
  const month = digitsAt(bytes, start + 5, start + 7);
  const year = digitsAt(bytes, start, start + 4) - (month <= 2 ? 1 : 0);
  const day = digitsAt(bytes, start + 8, start + 10);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
