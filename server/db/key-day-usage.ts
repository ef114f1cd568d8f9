import type pg from 'pg';
import { exactInteger } from './rows';
import type { KeyDayUsage } from './types';

export type KeyDayUsageQuery = (accountId: string, startDay: string, endDay: string) => Promise<KeyDayUsage[]>;

/*
 * The usage report's read (docs/performance.md, "Usage writes and the usage report"): every rollup row of one
 * account in a range of up to 92 days, i.e. up to 92 x its keys rows (70,000 for an account of
 * 1,000 keys), shaped for the report by the database: one text of all of them,
 * "<length of the key id>:<key id>,<day>,<requests>,<prompt tokens>,<completion
 * tokens>,<nano-dollars>,<femto remainder>" per row, ";" between rows, in no particular order
 * (the length makes any key id safe to read). A result row per rollup row cost the driver (pg)
 * and the reader an object and a dozen strings each, most of the report's time; the text is
 * read here in one pass, into a few arrays per key. No ORDER BY and no GROUP BY: sorting in
 * the database spilled to disk, and the report places each day by its offset.
 */
const POSTGRES_STATEMENT = {
  // Named: each pooled connection parses and plans it once. concat_ws is Postgres's cheapest
  // way to the text (a chain of || costs it twice as much).
  name: 'gateway_key_day_usage',
  text: `SELECT string_agg(concat_ws(',', char_length("key_id") || ':' || "key_id", "day", "requests", "prompt_tokens", "completion_tokens", "cost_nano_usd", "cost_femto_remainder"), ';')
    FROM "usage_daily" WHERE "account_id" = $1 AND "day" >= $2 AND "day" <= $3`,
  rowMode: 'array' as const,
  // Read as Postgres sent it, whatever pg.types says.
  types: { getTypeParser: () => (text: string) => text },
};

/** Postgres: the pg pool the Prisma adapter runs on. */
export function keyDayUsageThroughPg(pool: pg.Pool): KeyDayUsageQuery {
  return async (accountId, startDay, endDay) => {
    const result = await pool.query<[string | null]>({ ...POSTGRES_STATEMENT, values: [accountId, startDay, endDay] });
    return parseAccountDays(result.rows[0]?.[0] ?? null, startDay);
  };
}

/**
 * SQLite's text of the same rows (parameters: account, first day, last day), run by the usage
 * writer's connection (usage-writer-sqlite.ts): through the Prisma client, the one text of a
 * big report cost a third more.
 */
export const SQLITE_KEY_DAY_USAGE_SQL = `SELECT group_concat(length("key_id") || ':' || "key_id" || ',' || "day" || ',' || "requests" || ',' || "prompt_tokens" || ',' || "completion_tokens" || ',' || "cost_nano_usd" || ',' || "cost_femto_remainder", ';')
    FROM "usage_daily" WHERE "account_id" = ? AND "day" >= ? AND "day" <= ?`;

const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const ZERO = 0x30;
const MINUS = 0x2d;
/** Up to 15 digits, digit by digit arithmetic is exact (below 2^53) and equals Number(text). */
const EXACT_DIGITS = 15;

/** The text (see above) into a KeyDayUsage per key, each value as dailyUsage reads it. */
export function parseAccountDays(text: string | null, startDay: string): KeyDayUsage[] {
  const byKey = new Map<string, KeyDayUsage>();
  if (text === null || text === '') return [];
  const firstDay = dayNumber(startDay, 0);
  let index = 0;
  while (index < text.length) {
    const colon = text.indexOf(':', index);
    if (colon < 0) throw new Error('unexpected usage row text from the database');
    // The key id's length in characters (code points, as the database counts them).
    let end = colon + 1;
    for (let characters = numberAt(text, index, colon); characters > 0; characters -= 1) {
      const code = text.charCodeAt(end);
      end += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
    }
    const keyId = text.slice(colon + 1, end);
    let usage = byKey.get(keyId);
    if (usage === undefined) {
      usage = { keyId, dayOffsets: [], requests: [], promptTokens: [], completionTokens: [], costNanoUsd: [], costFemtoRemainder: [] };
      byKey.set(keyId, usage);
    }
    if (text.charCodeAt(end) !== COMMA) throw new Error(`unexpected usage row text for key ${keyId}`);
    index = end + 1;
    let field = 0;
    for (let at = index; ; at += 1) {
      const code = at < text.length ? text.charCodeAt(at) : SEMICOLON;
      if (code !== COMMA && code !== SEMICOLON) continue;
      switch (field) {
        case 0:
          usage.dayOffsets.push(dayNumber(text, index) - firstDay);
          break;
        case 1:
          usage.requests.push(numberAt(text, index, at));
          break;
        case 2:
          usage.promptTokens.push(numberAt(text, index, at));
          break;
        case 3:
          usage.completionTokens.push(numberAt(text, index, at));
          break;
        case 4:
          usage.costNanoUsd.push(at - index > EXACT_DIGITS ? exactInteger(text.slice(index, at)) : numberAt(text, index, at));
          break;
        default:
          usage.costFemtoRemainder.push(numberAt(text, index, at));
      }
      index = at + 1;
      if (code === SEMICOLON) {
        if (field !== 5) throw new Error(`unexpected usage row text for key ${keyId}`);
        break;
      }
      field += 1;
    }
  }
  return [...byKey.values()];
}

/**
 * The YYYY-MM-DD at `start` as days since 1970-01-01 (the proleptic Gregorian calendar's
 * days-from-civil in integer arithmetic: http://howardhinnant.github.io/date_algorithms.html).
 */
function dayNumber(text: string, start: number): number {
  const month = numberAt(text, start + 5, start + 7);
  const year = numberAt(text, start, start + 4) - (month <= 2 ? 1 : 0);
  const day = numberAt(text, start + 8, start + 10);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The integer text in [start, end) as Number() reads it. */
function numberAt(text: string, start: number, end: number): number {
  if (end - start > EXACT_DIGITS || end === start) return Number(text.slice(start, end));
  const negative = text.charCodeAt(start) === MINUS;
  let value = 0;
  for (let index = negative ? start + 1 : start; index < end; index += 1) {
    const digit = text.charCodeAt(index) - ZERO;
    if (digit < 0 || digit > 9) throw new Error(`expected an integer from the database, got ${text.slice(start, end)}`);
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}
