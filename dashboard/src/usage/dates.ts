/**
 * Calendar days of the usage report: Asia/Shanghai, UTC+8 all year (no daylight saving), so
 * "today" is the UTC date eight hours ahead, whatever the browser's own time zone.
 */
const DAY_MS = 86_400_000;
const SHANGHAI_OFFSET_MS = 8 * 3_600_000;

/** docs/usage-report.md: at most 92 days, inclusive. */
export const MAX_RANGE_DAYS = 92;
export const DEFAULT_RANGE_DAYS = 30;

export function shanghaiToday(now: number = Date.now()): string {
  return new Date(now + SHANGHAI_OFFSET_MS).toISOString().slice(0, 10);
}

/** Days since 1970-01-01 of a real YYYY-MM-DD date, else null. */
export function parseDay(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) return null;
  return ms / DAY_MS;
}

export function formatDay(days: number): string {
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(text: string, count: number): string {
  const day = parseDay(text);
  if (day === null) throw new Error(`not a date: ${text}`);
  return formatDay(day + count);
}

/** Every day from start to end inclusive (empty when either is not a date or start > end). */
export function eachDay(start: string, end: string): string[] {
  const first = parseDay(start);
  const last = parseDay(end);
  if (first === null || last === null || first > last) return [];
  return Array.from({ length: last - first + 1 }, (_value, index) => formatDay(first + index));
}

/** "3 Nov" style label of a day, for axes and captions. */
export function shortDay(text: string): string {
  const [, month, day] = text.split('-');
  const names = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return `${Number(day)} ${names[Number(month) - 1] ?? month}`;
}
