import type { DetailedUsageKeyEntry, DetailedUsageReport, UsageQuery, UsageReport, UsageKeyEntry, UsageModelEntry } from '../../contract';
import { KeyNumbers } from '../db/key-id-table';
import { splitFemtoUsd } from '../db/rows';
import type { KeyDayVisitor, ModelUsageRow, ReportKeyRow, Store, UsageDailyRow } from '../db/types';
import { invalidRequest } from '../errors/gateway-error';
import { NanoSum, nanoToUsd, roundedNanoUsd } from './cost';
import { formatDay, parseDay, REPORT_TIME_ZONE, shanghaiDay } from './shanghai-day';

/** GET /v1/usage/keys's report (exactly the fields of docs/usage-report.md, "The answer"), or with `detail` the admin report's. */
export interface UsageReporter {
  (accountId: string, query: UsageQuery): Promise<UsageReport>;
  (accountId: string, query: UsageQuery, options: { detail: true }): Promise<DetailedUsageReport>;
}

/** docs/usage-report.md: at most 92 days inclusive; exactly 92 is allowed. */
const MAX_RANGE_DAYS = 92;
const DEFAULT_RANGE_DAYS = 30;

/** Resolves and checks the report range (docs/usage-report.md). */
export function resolveRange(query: UsageQuery, nowMs: number): { start: string; end: string } {
  const endDay = query.end === undefined ? parseDay(shanghaiDay(nowMs)) : parseDay(query.end);
  if (endDay === null) throw invalidRequest('invalid_date', 'end must be a real date in the form YYYY-MM-DD.', 'end');
  const startDay = query.start === undefined ? endDay - (DEFAULT_RANGE_DAYS - 1) : parseDay(query.start);
  if (startDay === null) throw invalidRequest('invalid_date', 'start must be a real date in the form YYYY-MM-DD.', 'start');
  if (startDay > endDay) throw invalidRequest('invalid_range', 'start must not be after end.', 'start');
  if (endDay - startDay >= MAX_RANGE_DAYS) {
    throw invalidRequest('range_too_large', `The range may cover at most ${MAX_RANGE_DAYS} days.`, 'start');
  }
  return { start: formatDay(startDay), end: formatDay(endDay) };
}

/**
 * The per-key report: every ACTIVE key of the account (idle ones with zero totals), REVOKED
 * keys only when they have usage in the range; ordered by created_at then name; daily rows
 * ascending, empty days omitted. Each day's spend is rounded once to nano-dollars and the
 * totals are sums of those rounded rows, so totals equal the rows to the last digit.
 * A 92-day report of a big account has tens of thousands of rows: the store hands them over one
 * by one as plain values (Store.keyDayUsage), and each becomes its daily entry at once, placed by
 * its offset in the range and added to its key's totals, in plain numbers (exact while below
 * 2^53 nano-dollars, bigint beyond): docs/performance.md, "Usage writes and the usage report".
 * With `detail` (the admin report) every row and total also has the token breakdown, and each
 * key its usage per model.
 */
export function createUsageReporter(dependencies: { store: Store; now: () => number }): UsageReporter {
  const report = async (accountId: string, query: UsageQuery, options?: { detail: true }): Promise<UsageReport | DetailedUsageReport> => {
    const range = resolveRange(query, dependencies.now());
    const days = new ReportDays(range);
    const entries: UsageKeyEntry[] = [];
    if (options?.detail === true) {
      const [keys, rows, modelRows] = await Promise.all([
        dependencies.store.listReportKeys(accountId),
        dependencies.store.dailyUsage(accountId, range.start, range.end),
        dependencies.store.modelUsage(accountId, range.start, range.end),
      ]);
      const modelsByKey = groupModels(modelRows);
      // The store returns the rows in no particular order.
      const rowsByKey = new Map<string, UsageDailyRow[]>();
      const keyNumbers = new KeyNumbers();
      for (const row of rows) {
        days.visit(
          row.keyId,
          days.offsetOf(row.day),
          row.requests,
          row.promptTokens,
          row.completionTokens,
          row.costNanoUsd,
          row.costFemtoRemainder,
          keyNumbers.numberOf(row.keyId),
        );
        const list = rowsByKey.get(row.keyId);
        if (list) list.push(row);
        else rowsByKey.set(row.keyId, [row]);
      }
      for (const key of reportedKeys(keys, rowsByKey)) {
        const keyRows = (rowsByKey.get(key.id) ?? []).sort(compareDays);
        entries.push(withBreakdown(keyEntry(key, days), keyRows, modelsByKey.get(key.id) ?? []));
      }
    } else {
      const [keys] = await Promise.all([
        dependencies.store.listReportKeys(accountId),
        dependencies.store.keyDayUsage(accountId, range.start, range.end, days.visit),
      ]);
      for (const key of reportedKeys(keys, days.keys)) entries.push(keyEntry(key, days));
    }
    return { object: 'usage.keys', start: range.start, end: range.end, timezone: REPORT_TIME_ZONE, keys: entries };
  };
  // The implementation answers both signatures: the detailed report only when asked for.
  return report as UsageReporter;
}

/** The keys the report lists, in its order: REVOKED ones only with usage in the range. */
function reportedKeys(keys: ReportKeyRow[], withUsage: Map<string, unknown>): ReportKeyRow[] {
  return keys
    .filter((key) => key.status !== 'REVOKED' || withUsage.has(key.id))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareText(a.name, b.name));
}

type DailyEntry = UsageKeyEntry['daily'][number];

/** Per day of the range, a day's four values in a key's `days`. */
const SPEND = 0;
const REQUESTS = 1;
const PROMPT = 2;
const COMPLETION = 3;
const VALUES = 4;

/**
 * One key's usage in the range: where its days' values are in the report's arrays (its daily
 * entries are made when its entry is, one key after the other: made as the rows come, day by day
 * across the keys, they lay scattered in memory, and JSON.stringify of the report took a third
 * longer), and its totals.
 */
interface KeyDays {
  /** Its first day's place in ReportDays' `present` (its values' in `values`: times VALUES). */
  first: number;
  spendNano: NanoSum;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * The range's days (each one's text), and each key's usage in it, gathered row by row: every
 * key's days in one pair of arrays (grown as keys come), not a pair of its own per key.
 */
class ReportDays {
  readonly keys = new Map<string, KeyDays>();
  /** The same by the read's key number (KeyDayVisitor). */
  private readonly byNumber: KeyDays[] = [];
  readonly dates: string[];
  /** Per key and day of the range: 1 when the key has a row on that day. */
  present: Uint8Array;
  /** Per key and day of the range: its VALUES values. */
  values: Float64Array;
  private readonly firstDay: number;

  constructor(range: { start: string; end: string }) {
    this.firstDay = parseDay(range.start) ?? 0;
    const count = (parseDay(range.end) ?? 0) - this.firstDay + 1;
    this.dates = Array.from({ length: count }, (_, offset) => formatDay(this.firstDay + offset));
    this.present = new Uint8Array(count * INITIAL_KEYS);
    this.values = new Float64Array(count * INITIAL_KEYS * VALUES);
  }

  offsetOf(day: string): number {
    return (parseDay(day) ?? 0) - this.firstDay;
  }

  /** A rollup row (a KeyDayVisitor): its day's values, and its key's totals. */
  readonly visit: KeyDayVisitor = (
    keyId,
    dayOffset,
    requests,
    promptTokens,
    completionTokens,
    costNanoUsd,
    costFemtoRemainder,
    keyNumber,
  ) => {
    if (!(dayOffset >= 0 && dayOffset < this.dates.length)) {
      throw new Error(`usage row of key ${keyId} outside the report's range (day offset ${dayOffset})`);
    }
    const key = this.byNumber[keyNumber] ?? this.addKey(keyId, keyNumber);
    const nano = roundedNanoUsd(costNanoUsd, costFemtoRemainder);
    key.spendNano.add(nano);
    key.requests += requests;
    key.promptTokens += promptTokens;
    key.completionTokens += completionTokens;
    const day = key.first + dayOffset;
    const at = day * VALUES;
    const values = this.values;
    this.present[day] = 1;
    values[at + SPEND] = nanoToUsd(nano);
    values[at + REQUESTS] = requests;
    values[at + PROMPT] = promptTokens;
    values[at + COMPLETION] = completionTokens;
  };

  private addKey(keyId: string, keyNumber: number): KeyDays {
    const count = this.dates.length;
    const first = this.keys.size * count;
    if (first + count > this.present.length) {
      const present = new Uint8Array(this.present.length * 2);
      present.set(this.present);
      this.present = present;
      const values = new Float64Array(this.values.length * 2);
      values.set(this.values);
      this.values = values;
    }
    const key: KeyDays = { first, spendNano: new NanoSum(), requests: 0, promptTokens: 0, completionTokens: 0 };
    this.keys.set(keyId, key);
    this.byNumber[keyNumber] = key;
    return key;
  }
}

/** Keys the arrays of ReportDays have room for at first (they double when full). */
const INITIAL_KEYS = 64;

/** A key's entry: its days in order and their totals. */
function keyEntry(key: ReportKeyRow, days: ReportDays): UsageKeyEntry {
  const usage = days.keys.get(key.id);
  const daily: DailyEntry[] = [];
  if (usage !== undefined) {
    const { present, values, dates } = days;
    for (let offset = 0; offset < dates.length; offset += 1) {
      if (present[usage.first + offset] === 0) continue;
      const at = (usage.first + offset) * VALUES;
      daily.push({
        date: dates[offset] as string,
        spend_usd: values[at + SPEND] as number,
        requests: values[at + REQUESTS] as number,
        prompt_tokens: values[at + PROMPT] as number,
        completion_tokens: values[at + COMPLETION] as number,
      });
    }
  }
  return {
    name: key.name,
    hint: key.hint,
    status: key.status,
    blocked: key.blocked,
    created_at: key.createdAt.toISOString(),
    total: {
      spend_usd: nanoToUsd(usage?.spendNano.value ?? 0),
      requests: usage?.requests ?? 0,
      prompt_tokens: usage?.promptTokens ?? 0,
      completion_tokens: usage?.completionTokens ?? 0,
    },
    daily,
  };
}

type Breakdown = Pick<
  DetailedUsageKeyEntry['total'],
  'cached_tokens' | 'cache_write_tokens' | 'cache_write_1h_tokens' | 'reasoning_tokens'
>;

function breakdownOf(row: Pick<UsageDailyRow, 'cachedTokens' | 'cacheWriteTokens' | 'cacheWrite1hTokens' | 'reasoningTokens'>): Breakdown {
  return {
    cached_tokens: row.cachedTokens,
    cache_write_tokens: row.cacheWriteTokens,
    cache_write_1h_tokens: row.cacheWrite1hTokens,
    reasoning_tokens: row.reasoningTokens,
  };
}

/** The admin report's key entry: the breakdown on each day (rows in the entry's order) and in total, and the models. */
function withBreakdown(entry: UsageKeyEntry, rows: UsageDailyRow[], models: ModelUsageRow[]): DetailedUsageKeyEntry {
  const total: Breakdown = { cached_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, reasoning_tokens: 0 };
  const daily = entry.daily.map((day, index) => {
    const parts = breakdownOf(rows[index] as UsageDailyRow);
    total.cached_tokens += parts.cached_tokens;
    total.cache_write_tokens += parts.cache_write_tokens;
    total.cache_write_1h_tokens += parts.cache_write_1h_tokens;
    total.reasoning_tokens += parts.reasoning_tokens;
    return { ...day, ...parts };
  });
  return { ...entry, total: { ...entry.total, ...total }, daily, models: toModelEntries(models) };
}

/**
 * One entry per model (rows sorted by model) and, within it, one per deployment (docs/routing.md):
 * both are `usageCounts` of their rows, the model's over all its deployments' rows.
 */
function toModelEntries(rows: ModelUsageRow[]): UsageModelEntry[] {
  const entries: UsageModelEntry[] = [];
  for (let start = 0; start < rows.length;) {
    let end = start + 1;
    while (end < rows.length && rows[end]?.model === rows[start]?.model) end++;
    const group = rows.slice(start, end).sort((a, b) => compareText(a.deployment ?? '\uffff', b.deployment ?? '\uffff'));
    entries.push({
      model: group[0]!.model,
      ...usageCounts(group),
      deployments: group.map((row) => ({ deployment: row.deployment, ...usageCounts([row]) })),
    });
    start = end;
  }
  return entries;
}

/** The counts summed over rows; the spend rounded once, from their exact femto-dollars. */
function usageCounts(rows: readonly ModelUsageRow[]) {
  let costFemtoUsd = 0n;
  const sum = {
    requests: 0,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
  };
  for (const row of rows) {
    costFemtoUsd += row.costFemtoUsd;
    for (const field of Object.keys(sum) as (keyof typeof sum)[]) sum[field] += row[field];
  }
  const { costNanoUsd, costFemtoRemainder } = splitFemtoUsd(costFemtoUsd);
  return {
    spend_usd: nanoToUsd(roundedNanoUsd(costNanoUsd, costFemtoRemainder)),
    requests: sum.requests,
    prompt_tokens: sum.promptTokens,
    completion_tokens: sum.completionTokens,
    ...breakdownOf(sum),
  };
}

/** Model rows per key, each key's by model id. */
function groupModels(rows: ModelUsageRow[]): Map<string, ModelUsageRow[]> {
  const byKey = new Map<string, ModelUsageRow[]>();
  for (const row of [...rows].sort((a, b) => compareText(a.model, b.model))) {
    const list = byKey.get(row.keyId);
    if (list) list.push(row);
    else byKey.set(row.keyId, [row]);
  }
  return byKey;
}

function compareDays(a: UsageDailyRow, b: UsageDailyRow): number {
  return compareText(a.day, b.day);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
