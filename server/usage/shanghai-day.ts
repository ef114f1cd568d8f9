import { getTimezoneOffset } from 'date-fns-tz/getTimezoneOffset';

export const REPORT_TIME_ZONE = 'Asia/Shanghai';

export const DAY_MS = 86_400_000;

/** The day last asked for, as an interval of instants: every usage event asks, and nearly all fall in it. */
let current: { from: number; to: number; day: string } | null = null;

/**
 * The Asia/Shanghai calendar day of an instant (docs/usage-report.md: 15:59:59.999Z is still the
 * same day). The zone's offset comes from the time-zone database (date-fns-tz over Intl); a
 * day whose offset does not change within it (every Shanghai day since 1991) is remembered
 * as the interval it covers, so the per-event cost is two comparisons.
 */
export function shanghaiDay(instantMs: number): string {
  if (current !== null && instantMs >= current.from && instantMs < current.to) return current.day;
  const offset = getTimezoneOffset(REPORT_TIME_ZONE, new Date(instantMs));
  const dayIndex = Math.floor((instantMs + offset) / DAY_MS);
  const day = formatDay(dayIndex);
  const from = dayIndex * DAY_MS - offset;
  const to = from + DAY_MS;
  if (getTimezoneOffset(REPORT_TIME_ZONE, new Date(from)) === offset && getTimezoneOffset(REPORT_TIME_ZONE, new Date(to - 1)) === offset) {
    current = { from, to, day };
  }
  return day;
}

/** A real calendar date `YYYY-MM-DD` -> days since 1970-01-01, else null. */
export function parseDay(text: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const time = Date.UTC(year, month - 1, day);
  const date = new Date(time);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return Math.round(time / DAY_MS);
}

export function formatDay(daysSinceEpoch: number): string {
  return new Date(daysSinceEpoch * DAY_MS).toISOString().slice(0, 10);
}
