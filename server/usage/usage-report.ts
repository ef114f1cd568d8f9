import type { DetailedUsageKeyEntry, DetailedUsageReport, UsageQuery, UsageReport, UsageKeyEntry, UsageModelEntry } from '../../contract';
import { splitFemtoUsd } from '../db/rows';
import type { ApiKeyRow, KeyDayUsage, ModelUsageRow, Store, UsageDailyRow } from '../db/types';
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
 * A 92-day report of a big account has tens of thousands of rows: the store returns them
 * grouped by key, column by column (Store.keyDayUsage), and each key's days are placed by
 * their offset in the range and turned into the response in one pass, in plain numbers
 * (exact while below 2^53 nano-dollars, bigint beyond): docs/performance.md, "Usage writes
 * and the usage report". With `detail` (the admin report) every row and total also has the token
 * breakdown, and each key its usage per model.
 */
export function createUsageReporter(dependencies: { store: Store; now: () => number }): UsageReporter {
  const report = async (accountId: string, query: UsageQuery, options?: { detail: true }): Promise<UsageReport | DetailedUsageReport> => {
    const range = resolveRange(query, dependencies.now());
    const days = new ReportDays(range);
    const entries: UsageKeyEntry[] = [];
    if (options?.detail === true) {
      const [keys, rows, modelRows] = await Promise.all([
        dependencies.store.listApiKeys(accountId),
        dependencies.store.dailyUsage(accountId, range.start, range.end),
        dependencies.store.modelUsage(accountId, range.start, range.end),
      ]);
      const modelsByKey = groupModels(modelRows);
      // The store returns the rows in no particular order.
      const rowsByKey = new Map<string, UsageDailyRow[]>();
      for (const row of rows) {
        const list = rowsByKey.get(row.keyId);
        if (list) list.push(row);
        else rowsByKey.set(row.keyId, [row]);
      }
      for (const key of reportedKeys(keys, rowsByKey)) {
        const keyRows = (rowsByKey.get(key.id) ?? []).sort(compareDays);
        const entry = keyEntry(key, days, keyRows.length === 0 ? undefined : days.columnsOf(key.id, keyRows));
        entries.push(withBreakdown(entry, keyRows, modelsByKey.get(key.id) ?? []));
      }
    } else {
      const [keys, usage] = await Promise.all([
        dependencies.store.listApiKeys(accountId),
        dependencies.store.keyDayUsage(accountId, range.start, range.end),
      ]);
      const usageByKey = new Map<string, KeyDayUsage>();
      for (const keyUsage of usage) usageByKey.set(keyUsage.keyId, keyUsage);
      for (const key of reportedKeys(keys, usageByKey)) entries.push(keyEntry(key, days, usageByKey.get(key.id)));
    }
    return { object: 'usage.keys', start: range.start, end: range.end, timezone: REPORT_TIME_ZONE, keys: entries };
  };
  // The implementation answers both signatures: the detailed report only when asked for.
  return report as UsageReporter;
}

/** The keys the report lists, in its order: REVOKED ones only with usage in the range. */
function reportedKeys(keys: ApiKeyRow[], withUsage: Map<string, unknown>): ApiKeyRow[] {
  return keys
    .filter((key) => key.status !== 'REVOKED' || withUsage.has(key.id))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareText(a.name, b.name));
}

/** The range's days: each one's text, and a slot per day for placing a key's rows in order. */
class ReportDays {
  readonly dates: string[];
  private readonly firstDay: number;
  /** For the key being placed: the index of its row on each day, -1 for none. */
  private readonly slots: Int32Array;

  constructor(range: { start: string; end: string }) {
    this.firstDay = parseDay(range.start) ?? 0;
    const count = (parseDay(range.end) ?? 0) - this.firstDay + 1;
    this.dates = Array.from({ length: count }, (_, offset) => formatDay(this.firstDay + offset));
    this.slots = new Int32Array(count);
  }

  /** The indexes of `usage`'s rows in day order. */
  order(usage: KeyDayUsage): number[] {
    const slots = this.slots;
    slots.fill(-1);
    const offsets = usage.dayOffsets;
    for (let index = 0; index < offsets.length; index += 1) slots[offsets[index] as number] = index;
    const order: number[] = [];
    for (let offset = 0; offset < slots.length; offset += 1) {
      const index = slots[offset] as number;
      if (index >= 0) order.push(index);
    }
    return order;
  }

  /** Rows of one key (the admin report's read) as Store.keyDayUsage gives them. */
  columnsOf(keyId: string, rows: readonly UsageDailyRow[]): KeyDayUsage {
    return {
      keyId,
      dayOffsets: rows.map((row) => (parseDay(row.day) ?? 0) - this.firstDay),
      requests: rows.map((row) => row.requests),
      promptTokens: rows.map((row) => row.promptTokens),
      completionTokens: rows.map((row) => row.completionTokens),
      costNanoUsd: rows.map((row) => row.costNanoUsd),
      costFemtoRemainder: rows.map((row) => row.costFemtoRemainder),
    };
  }
}

/** A key's entry: its days in order and their totals. */
function keyEntry(key: ApiKeyRow, days: ReportDays, usage: KeyDayUsage | undefined): UsageKeyEntry {
  const spendNano = new NanoSum();
  let requests = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let daily: UsageKeyEntry['daily'] = [];
  if (usage !== undefined) {
    const order = days.order(usage);
    daily = new Array(order.length);
    for (let position = 0; position < order.length; position += 1) {
      const index = order[position] as number;
      const nano = roundedNanoUsd(usage.costNanoUsd[index] as number | bigint, usage.costFemtoRemainder[index] as number);
      const dayRequests = usage.requests[index] as number;
      const dayPrompt = usage.promptTokens[index] as number;
      const dayCompletion = usage.completionTokens[index] as number;
      spendNano.add(nano);
      requests += dayRequests;
      promptTokens += dayPrompt;
      completionTokens += dayCompletion;
      daily[position] = {
        date: days.dates[usage.dayOffsets[index] as number] as string,
        spend_usd: nanoToUsd(nano),
        requests: dayRequests,
        prompt_tokens: dayPrompt,
        completion_tokens: dayCompletion,
      };
    }
  }
  return {
    name: key.name,
    hint: key.hint,
    status: key.status,
    blocked: key.blocked,
    created_at: key.createdAt.toISOString(),
    total: { spend_usd: nanoToUsd(spendNano.value), requests, prompt_tokens: promptTokens, completion_tokens: completionTokens },
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
