import { getTimezoneOffset } from 'date-fns-tz/getTimezoneOffset';
import type { BudgetPeriod } from '../db/types';
import { DAY_MS, formatDay, REPORT_TIME_ZONE } from '../usage/shanghai-day';

/**
 * The window of a budget period that holds an instant (docs/operator-controls.md, spend
 * budgets): calendar-aligned to Asia/Shanghai like the usage report. `day`: that calendar
 * day; `week`: Monday to Sunday; `month`: the calendar month; `total`: everything, no end.
 * Always whole Shanghai days, so its spend is the daily rollup's sum over `[startDay, endDay)`.
 */
export interface BudgetWindow {
  /** Epoch ms of the window's first instant (0 for `total`). */
  start: number;
  /** Epoch ms of the first instant after it; null for `total`. */
  end: number | null;
  startDay: string;
  /** The first day after the window, YYYY-MM-DD; null for `total`. */
  endDay: string | null;
}

export function budgetWindow(period: BudgetPeriod, instantMs: number): BudgetWindow {
  if (period === 'total') return { start: 0, end: null, startDay: formatDay(0), endDay: null };
  const dayIndex = Math.floor((instantMs + offsetAt(instantMs)) / DAY_MS);
  let first = dayIndex;
  let after = dayIndex + 1;
  if (period === 'week') {
    // 1970-01-01 was a Thursday: (index + 3) mod 7 is 0 on Mondays.
    first = dayIndex - ((((dayIndex + 3) % 7) + 7) % 7);
    after = first + 7;
  } else if (period === 'month') {
    const date = new Date(dayIndex * DAY_MS);
    first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS;
    after = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / DAY_MS;
  }
  return { start: midnight(first), end: midnight(after), startDay: formatDay(first), endDay: formatDay(after) };
}

/** The instant a Shanghai calendar day (days since 1970-01-01) starts. */
function midnight(dayIndex: number): number {
  const guess = dayIndex * DAY_MS;
  return guess - offsetAt(guess - offsetAt(guess));
}

function offsetAt(instantMs: number): number {
  return getTimezoneOffset(REPORT_TIME_ZONE, new Date(instantMs));
}
