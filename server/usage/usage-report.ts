import type { UsageQuery, UsageReport, UsageKeyEntry } from '../../contract';
import type { Store, UsageDailyRow } from '../db/types';
import { invalidRequest } from '../errors/gateway-error';
import { NanoSum, nanoToUsd, roundedNanoUsd } from './cost';
import { formatDay, parseDay, REPORT_TIME_ZONE, shanghaiDay } from './shanghai-day';

export type UsageReporter = (accountId: string, query: UsageQuery) => Promise<UsageReport>;

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
 * A 92-day report of a big account has tens of thousands of rows: they are turned into the
 * response in one pass, in plain numbers (exact while below 2^53 nano-dollars, bigint beyond).
 */
export function createUsageReporter(dependencies: { store: Store; now: () => number }): UsageReporter {
  return async (accountId, query) => {
    const range = resolveRange(query, dependencies.now());
    const [keys, rows] = await Promise.all([
      dependencies.store.listApiKeys(accountId),
      dependencies.store.dailyUsage(accountId, range.start, range.end),
    ]);
    // The store returns the rows in no particular order.
    const rowsByKey = new Map<string, UsageDailyRow[]>();
    for (const row of rows) {
      const list = rowsByKey.get(row.keyId);
      if (list) list.push(row);
      else rowsByKey.set(row.keyId, [row]);
    }
    const ordered = [...keys].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareText(a.name, b.name));
    const entries: UsageKeyEntry[] = [];
    for (const key of ordered) {
      const keyRows = rowsByKey.get(key.id) ?? [];
      if (key.status === 'REVOKED' && keyRows.length === 0) continue;
      keyRows.sort(compareDays);
      const spendNano = new NanoSum();
      let requests = 0;
      let promptTokens = 0;
      let completionTokens = 0;
      const daily: UsageKeyEntry['daily'] = new Array(keyRows.length);
      for (let index = 0; index < keyRows.length; index += 1) {
        const row = keyRows[index] as UsageDailyRow;
        const nano = roundedNanoUsd(row.costNanoUsd, row.costFemtoRemainder);
        spendNano.add(nano);
        requests += row.requests;
        promptTokens += row.promptTokens;
        completionTokens += row.completionTokens;
        daily[index] = {
          date: row.day,
          spend_usd: nanoToUsd(nano),
          requests: row.requests,
          prompt_tokens: row.promptTokens,
          completion_tokens: row.completionTokens,
        };
      }
      entries.push({
        name: key.name,
        hint: key.hint,
        status: key.status,
        blocked: key.blocked,
        created_at: key.createdAt.toISOString(),
        total: { spend_usd: nanoToUsd(spendNano.value), requests, prompt_tokens: promptTokens, completion_tokens: completionTokens },
        daily,
      });
    }
    return { object: 'usage.keys', start: range.start, end: range.end, timezone: REPORT_TIME_ZONE, keys: entries };
  };
}

function compareDays(a: UsageDailyRow, b: UsageDailyRow): number {
  return compareText(a.day, b.day);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
