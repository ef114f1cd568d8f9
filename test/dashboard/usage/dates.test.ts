import { describe, expect, it } from 'vitest';
import { addDays, eachDay, formatDay, parseDay, shanghaiToday, shortDay } from '../../../dashboard/src/usage/dates';

describe('dashboard dates (Asia/Shanghai days)', () => {
  it('turns to the next Shanghai day at 16:00 UTC', () => {
    expect(shanghaiToday(Date.parse('2026-03-01T15:59:59.999Z'))).toBe('2026-03-01');
    expect(shanghaiToday(Date.parse('2026-03-01T16:00:00.000Z'))).toBe('2026-03-02');
  });

  it('accepts only real YYYY-MM-DD dates', () => {
    expect(parseDay('2024-02-29')).not.toBeNull();
    expect(parseDay('2026-02-29')).toBeNull();
    expect(parseDay('2026-13-01')).toBeNull();
    expect(parseDay('2026-1-01')).toBeNull();
    expect(parseDay('')).toBeNull();
    expect(formatDay(parseDay('2026-11-25') ?? 0)).toBe('2026-11-25');
  });

  it('adds days across month and year ends, and refuses a non-date', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(() => addDays('nope', 1)).toThrow('not a date');
  });

  it('lists every day of a range inclusively, none for a reversed or bad range', () => {
    expect(eachDay('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(eachDay('2026-03-02', '2026-03-01')).toEqual([]);
    expect(eachDay('2026-03-02', 'x')).toEqual([]);
  });

  it('labels days for axes', () => {
    expect(shortDay('2026-11-03')).toBe('3 Nov');
    expect(shortDay('2026-01-31')).toBe('31 Jan');
  });
});
