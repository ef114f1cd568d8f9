import { formatInTimeZone } from 'date-fns-tz';

export const REPORT_TIME_ZONE = 'Asia/Shanghai';

/** The Asia/Shanghai calendar day of an instant (decisions.md §3: 15:59:59.999Z is still the same day). */
export function shanghaiDay(instantMs: number): string {
  return formatInTimeZone(instantMs, REPORT_TIME_ZONE, 'yyyy-MM-dd');
}

const DAY_MS = 86_400_000;

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
