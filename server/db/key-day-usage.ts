import type pg from 'pg';
import { formatDay } from '../usage/shanghai-day';
import { KeyIdTable, KeyNumbers } from './key-id-table';
import { exactInteger } from './rows';
import type { KeyDayVisitor } from './types';

export type KeyDayUsageQuery = (accountId: string, startDay: string, endDay: string, visit: KeyDayVisitor) => Promise<void>;

/*
 * The usage report's read (docs/performance.md, "Usage writes and the usage report"): every
 * rollup row of one account in a range of up to 92 days, i.e. up to 92 x its keys rows (70,000
 * for an account of 1,000 keys), handed to the report row by row as plain values: no object per
 * row on the way. Both databases read them from the index by account and day alone (migration
 * 0010), which carries every column read here.
 *
 * Postgres writes them as one text: "<length of the key id>,<key id>,<day>,<requests>,<prompt
 * tokens>,<completion tokens>,<nano-dollars>,<femto remainder>" per row, ";" between rows, in
 * no particular order (the length makes any key id safe to read). A result row per rollup row
 * cost the driver (pg) an object and a dozen strings each; the text is read here in one pass.
 * No ORDER BY and no GROUP BY: sorting in the database spilled to disk, and the report places
 * each day by its offset.
 */
const POSTGRES_STATEMENT = {
  // Named: each pooled connection parses and plans it once. concat_ws is Postgres's cheapest
  // way to the text (a chain of || costs it twice as much), each value one of its arguments.
  name: 'gateway_key_day_usage',
  text: `SELECT string_agg(concat_ws(',', char_length("key_id"), "key_id", "day", "requests", "prompt_tokens", "completion_tokens", "cost_nano_usd", "cost_femto_remainder"), ';')
    FROM "usage_daily" WHERE "account_id" = $1 AND "day" >= $2 AND "day" <= $3`,
  rowMode: 'array' as const,
  // Read as Postgres sent it, whatever pg.types says.
  types: { getTypeParser: () => (text: string) => text },
};

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
  const first = dayNumber(startDay, 0);
  const last = dayNumber(endDay, 0);
  const chunks: Array<[string, string]> = [];
  for (let from = first; from <= last; from += days) chunks.push([formatDay(from), formatDay(Math.min(last, from + days - 1))]);
  return chunks;
}

/**
 * SQLite's read of the same rows (parameters: account, first day, last day), run by the usage
 * writer's connection (usage-writer-sqlite.ts) as raw rows: better-sqlite3 makes the values
 * directly, which costs less than SQLite writing them as one text and this module reading it.
 * Nano-dollars beyond 2^53 come as text, to stay exact.
 */
export const SQLITE_KEY_DAY_USAGE_SQL = `SELECT "key_id", "day", "requests", "prompt_tokens", "completion_tokens",
      CASE WHEN "cost_nano_usd" BETWEEN -9007199254740991 AND 9007199254740991 THEN "cost_nano_usd" ELSE CAST("cost_nano_usd" AS TEXT) END,
      "cost_femto_remainder"
    FROM "usage_daily" WHERE "account_id" = ? AND "day" >= ? AND "day" <= ?`;

export type SqliteKeyDayRow = [string, string, number, number, number, number | string, number];

/** SQLite's rows (SQLITE_KEY_DAY_USAGE_SQL, raw) to the visitor. */
export function visitSqliteRows(rows: Iterable<SqliteKeyDayRow>, startDay: string, endDay: string, visit: KeyDayVisitor): void {
  const days = new RangeDays(startDay, endDay);
  const keys = new KeyNumbers();
  for (const row of rows) {
    const nano = row[5];
    const keyId = row[0];
    visit(
      keyId,
      days.offsetAt(row[1], 0),
      row[2],
      row[3],
      row[4],
      typeof nano === 'number' ? nano : exactInteger(nano),
      row[6],
      keys.numberOf(keyId),
    );
  }
}

const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const ZERO = 0x30;
const MINUS = 0x2d;
/** Up to 15 digits, digit by digit arithmetic is exact (below 2^53) and equals Number(text). */
const EXACT_DIGITS = 15;
const SURROGATE = /[\ud800-\udbff]/;

/**
 * Postgres's text (see above) to the visitor, row by row, each value as dailyUsage reads it, in
 * one pass over the text (each integer read where it is found); `keyIds` numbers the key ids, for
 * every statement of the read.
 */
export function visitAccountDays(text: string | null, days: RangeDays, visit: KeyDayVisitor, keyIds: KeyIdTable): void {
  if (text === null || text === '') return;
  const end = text.length;
  // Postgres counts a key id's length in code points; without a surrogate pair in the text each
  // is one UTF-16 unit, and the key id's end needs no walk through its characters.
  const oneUnitPerCodePoint = !SURROGATE.test(text);
  const row = new RowReader(text);
  while (row.at < end) {
    const characters = row.integer(COMMA);
    const keyStart = row.at;
    let keyEnd = keyStart + characters;
    if (!oneUnitPerCodePoint) {
      keyEnd = keyStart;
      for (let left = characters; left > 0; left -= 1) {
        const code = text.charCodeAt(keyEnd);
        keyEnd += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
      }
    }
    if (keyEnd > end || text.charCodeAt(keyEnd) !== COMMA || text.charCodeAt(keyEnd + 11) !== COMMA) {
      throw new Error(`unexpected usage row text for key ${text.slice(keyStart, keyEnd)}`);
    }
    const keyNumber = keyIds.find(text, keyStart, keyEnd);
    const dayOffset = days.offsetAt(text, keyEnd + 1);
    row.at = keyEnd + 12;
    const requests = row.integer(COMMA);
    const promptTokens = row.integer(COMMA);
    const completionTokens = row.integer(COMMA);
    const costNanoUsd = row.exactInteger(COMMA);
    const costFemtoRemainder = row.integer(SEMICOLON);
    visit(keyIds.ids[keyNumber] as string, dayOffset, requests, promptTokens, completionTokens, costNanoUsd, costFemtoRemainder, keyNumber);
  }
}

/** Reads the integers of the row text one after the other, each up to its delimiter. */
class RowReader {
  /** Where the next value starts. */
  at = 0;

  constructor(private readonly text: string) {}

  /**
   * The integer from `at` to `delimiter` (the row's last value: to a semicolon or the text's
   * end) as Number() reads it; `at` moves past the delimiter.
   */
  integer(delimiter: number): number {
    const text = this.text;
    const start = this.at;
    const negative = text.charCodeAt(start) === MINUS;
    let at = negative ? start + 1 : start;
    let value = 0;
    for (; at < text.length; at += 1) {
      const digit = text.charCodeAt(at) - ZERO;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
    }
    this.endAt(at, delimiter);
    // Up to 15 digits, digit by digit arithmetic is exact (below 2^53) and equals Number(text).
    if (at - start > EXACT_DIGITS || at === start) return Number(text.slice(start, at));
    return negative ? -value : value;
  }

  /** The same, exact beyond 2^53 (a bigint then). */
  exactInteger(delimiter: number): number | bigint {
    const start = this.at;
    const value = this.integer(delimiter);
    return this.at - 1 - start > EXACT_DIGITS ? exactInteger(this.text.slice(start, this.at - 1)) : value;
  }

  private endAt(at: number, delimiter: number): void {
    const code = this.text.charCodeAt(at);
    if (code !== delimiter && !(delimiter === SEMICOLON && at === this.text.length)) {
      throw new Error(`expected an integer from the database, got ${this.text.slice(this.at, at + 1)}`);
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
    this.firstDay = dayNumber(startDay, 0);
    this.firstYear = digitsAt(startDay, 0, 4);
    this.offsets = new Int16Array(416 * 3).fill(-1);
    const count = Math.min(LOOKED_UP_DAYS, dayNumber(endDay, 0) - this.firstDay + 1);
    for (let offset = 0; offset < count; offset += 1) {
      const day = formatDay(this.firstDay + offset);
      const slot = this.slotOf(digitsAt(day, 0, 4), digitsAt(day, 5, 7), digitsAt(day, 8, 10));
      if (slot >= 0) this.offsets[slot] = offset;
    }
  }

  /** The offset of the YYYY-MM-DD at `start` in `text`. */
  offsetAt(text: string, start: number): number {
    const slot = this.slotOf(digitsAt(text, start, start + 4), digitsAt(text, start + 5, start + 7), digitsAt(text, start + 8, start + 10));
    const offset = slot >= 0 ? (this.offsets[slot] as number) : -1;
    return offset >= 0 && text.charCodeAt(start + 4) === MINUS && text.charCodeAt(start + 7) === MINUS
      ? offset
      : dayNumber(text, start) - this.firstDay;
  }

  private slotOf(year: number, month: number, day: number): number {
    const years = year - this.firstYear;
    return years >= 0 && years < 3 && month <= 12 && day <= 31 ? years * 416 + month * 32 + day : -1;
  }
}

/** The digits in [start, end) as a number: an error for anything but digits. */
function digitsAt(text: string, start: number, end: number): number {
  let value = 0;
  for (let index = start; index < end; index += 1) {
    const digit = text.charCodeAt(index) - ZERO;
    if (digit < 0 || digit > 9) throw new Error(`expected a day from the database, got ${text.slice(start, end)}`);
    value = value * 10 + digit;
  }
  return value;
}

/**
 * The YYYY-MM-DD at `start` as days since 1970-01-01 (the proleptic Gregorian calendar's
 * days-from-civil in integer arithmetic: http://howardhinnant.github.io/date_algorithms.html).
 */
function dayNumber(text: string, start: number): number {
  const month = digitsAt(text, start + 5, start + 7);
  const year = digitsAt(text, start, start + 4) - (month <= 2 ? 1 : 0);
  const day = digitsAt(text, start + 8, start + 10);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
