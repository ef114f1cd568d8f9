import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shanghaiDay } from '../../server/usage/shanghai-day';

/** The oracle: Intl's own Asia/Shanghai calendar date (en-CA formats as YYYY-MM-DD). */
const intlDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' });

describe('shanghaiDay', () => {
  it('puts the last millisecond before 16:00Z on the same day and 16:00Z on the next (docs/usage-report.md)', () => {
    expect(shanghaiDay(Date.parse('2026-11-20T15:59:59.999Z'))).toBe('2026-11-20');
    expect(shanghaiDay(Date.parse('2026-11-20T16:00:00.000Z'))).toBe('2026-11-21');
    expect(shanghaiDay(Date.parse('2026-11-20T15:59:59.999Z'))).toBe('2026-11-20');
    expect(shanghaiDay(Date.parse('2026-12-31T16:00:00.000Z'))).toBe('2027-01-01');
    expect(shanghaiDay(Date.parse('2028-02-28T16:00:00.000Z'))).toBe('2028-02-29');
  });

  it('agrees with the time-zone database for any instant, in any order (1980-2100, incl. the DST years 1986-1991)', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1980, 0, 1), max: Date.UTC(2100, 0, 1) }), (instant) => {
        expect(shanghaiDay(instant)).toBe(intlDay.format(instant));
      }),
      { numRuns: 3_000 },
    );
  });

  it('agrees around every midnight and DST change of 1986-1991, asked in sequence', () => {
    for (let instant = Date.UTC(1986, 0, 1); instant < Date.UTC(1992, 0, 1); instant += 30 * 60_000 - 1) {
      expect(shanghaiDay(instant)).toBe(intlDay.format(instant));
    }
  });
});
