import { describe, expect, it } from 'vitest';
import { KeyIdTable } from '../../server/db/key-id-table';
import { RangeDays } from '../../server/db/key-day-usage';
import { formatDay, parseDay } from '../../server/usage/shanghai-day';

describe('KeyIdTable', () => {
  it('numbers the key ids in the order first found, also ids with the same length and ending, past its first size', () => {
    const table = new KeyIdTable(4);
    const ids = Array.from({ length: 5_000 }, (_, index) => `${index % 7 === 0 ? 'x' : 'k'}${index}_same_end`);
    const text = ids.map((id) => `,${id};`).join('');
    const bytes = Buffer.from(text);
    let at = 0;
    ids.forEach((id, index) => {
      const start = text.indexOf(',', at) + 1;
      expect(table.find(bytes, start, start + id.length)).toBe(index);
      at = start + id.length;
    });
    // Found again in another text: the same numbers.
    const again = Buffer.from(`[${ids.join('|')}]`);
    let start = 1;
    ids.forEach((id, index) => {
      expect(table.find(again, start, start + id.length)).toBe(index);
      start += id.length + 1;
    });
    expect(table.ids).toEqual(ids);
  });

  it('tells apart ids that differ only in their first bytes, and ids beyond ASCII', () => {
    const table = new KeyIdTable();
    const ids = ['a_0001', 'b_0001', '0001', 'k\u{1f600}1', 'j\u{1f600}1', 'k\u00e91', ''];
    const bytes = Buffer.from(ids.join(''));
    let start = 0;
    ids.forEach((id, index) => {
      const end = start + Buffer.byteLength(id);
      expect(table.find(bytes, start, end)).toBe(index);
      start = end;
    });
    expect(table.find(bytes, 0, ids[0]!.length)).toBe(0);
    expect(table.ids).toEqual(ids);
  });
});

describe('RangeDays', () => {
  it('gives each day its offset from the range start, across a leap day and a new year, and computes days outside the range', () => {
    for (const [start, end] of [
      ['2027-12-01', '2028-03-01'],
      ['2026-01-01', '2026-01-01'],
      ['2023-10-02', '2024-01-01'],
    ] as const) {
      const days = new RangeDays(start, end);
      const first = parseDay(start) ?? 0;
      for (let day = first - 3; day <= (parseDay(end) ?? 0) + 3; day += 1) {
        expect(days.offsetAt(Buffer.from(`,${formatDay(day)},`), 1)).toBe(day - first);
      }
    }
  });

  it('refuses a day that is not digits', () => {
    expect(() => new RangeDays('2026-01-01', '2026-01-31').offsetAt(Buffer.from('2026-01-0x'), 0)).toThrow(/expected a day/);
  });
});
