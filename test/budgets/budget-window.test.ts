import { describe, expect, it } from 'vitest';
import { budgetWindow } from '../../server/budgets/budget-window';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('budget windows (Asia/Shanghai, UTC+8)', () => {
  it('a day runs from Shanghai midnight (16:00 UTC the day before)', () => {
    const window = budgetWindow('day', at('2026-03-10T15:59:59.999Z'));
    expect([iso(window.start), iso(window.end), window.startDay, window.endDay]).toEqual([
      '2026-03-09T16:00:00.000Z',
      '2026-03-10T16:00:00.000Z',
      '2026-03-10',
      '2026-03-11',
    ]);
    expect(budgetWindow('day', at('2026-03-10T16:00:00.000Z')).startDay).toBe('2026-03-11');
  });

  it('a week starts on Monday, Shanghai time', () => {
    // Sunday 2026-03-15 23:59 in Shanghai, then Monday 2026-03-16 00:00.
    const sunday = budgetWindow('week', at('2026-03-15T15:59:00.000Z'));
    expect([sunday.startDay, sunday.endDay, iso(sunday.start)]).toEqual(['2026-03-09', '2026-03-16', '2026-03-08T16:00:00.000Z']);
    const monday = budgetWindow('week', at('2026-03-15T16:00:00.000Z'));
    expect([monday.startDay, monday.endDay]).toEqual(['2026-03-16', '2026-03-23']);
    // A week across a year's end.
    expect(budgetWindow('week', at('2027-01-01T04:00:00.000Z')).startDay).toBe('2026-12-28');
  });

  it('a month is the calendar month, ends of February and December included', () => {
    const february = budgetWindow('month', at('2028-02-29T12:00:00.000Z'));
    expect([february.startDay, february.endDay, iso(february.end)]).toEqual(['2028-02-01', '2028-03-01', '2028-02-29T16:00:00.000Z']);
    // 2026-12-31T16:00Z is already January 1st in Shanghai.
    expect(budgetWindow('month', at('2026-12-31T16:00:00.000Z')).startDay).toBe('2027-01-01');
    expect(budgetWindow('month', at('2026-12-31T15:59:59.999Z')).endDay).toBe('2027-01-01');
  });

  it('total has no end', () => {
    expect(budgetWindow('total', at('2026-03-10T00:00:00.000Z'))).toEqual({ start: 0, end: null, startDay: '1970-01-01', endDay: null });
  });
});
