import { describe, expect, it } from 'vitest';
import { chartLayout, niceCeil, type ChartSeries } from '../../../dashboard/src/usage/chart-layout';

const days = ['2026-11-01', '2026-11-02', '2026-11-03'];
const series = (label: string, color: number, values: Record<string, number>): ChartSeries => ({
  label,
  color,
  values: new Map(Object.entries(values)),
});
const options = (entries: ChartSeries[], integer = true) => ({
  title: 'Requests',
  days,
  series: entries,
  formatAxis: (value: number) => String(value),
  formatValue: (value: number) => `${value} req`,
  width: 600,
  integer,
});

describe('usage chart layout', () => {
  it('rounds axis steps up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect([0, 0.3, 1, 1.5, 2.2, 3, 7, 11, 240].map(niceCeil)).toEqual([1, 0.5, 1, 2, 2.5, 5, 10, 20, 250]);
  });

  it('stacks one segment per key and day with traffic, bottom to top in series order', () => {
    const layout = chartLayout(options([series('a', 0, { '2026-11-01': 3, '2026-11-03': 1 }), series('b', 1, { '2026-11-01': 5 })]));
    expect(layout.bars.map((bar) => [bar.day, bar.series.label, bar.value])).toEqual([
      ['2026-11-01', 'a', 3],
      ['2026-11-01', 'b', 5],
      ['2026-11-03', 'a', 1],
    ]);
    const [first, second] = layout.bars;
    // b sits right on top of a.
    expect((second?.y ?? 0) + (second?.height ?? 0)).toBeCloseTo(first?.y ?? -1, 6);
    expect(layout.grandTotal).toBe(9);
  });

  it('puts the top tick at or above the busiest day, in whole numbers for counts', () => {
    const layout = chartLayout(options([series('a', 0, { '2026-11-02': 7 })]));
    const values = layout.ticks.map((tick) => tick.value);
    expect(values[0]).toBe(0);
    expect(values.at(-1)).toBeGreaterThanOrEqual(7);
    for (const value of values) expect(Number.isInteger(value)).toBe(true);
    // Higher values are drawn higher up (smaller y).
    expect(layout.ticks[4]?.y ?? 0).toBeLessThan(layout.ticks[0]?.y ?? 0);
  });

  it('summarises the total and the busiest day, or says there is nothing', () => {
    expect(chartLayout(options([series('a', 0, { '2026-11-02': 7, '2026-11-03': 2 })])).summary).toBe(
      'Requests: 9 req in total over 3 days; most on 2 Nov (7 req).',
    );
    expect(chartLayout(options([])).summary).toBe('Requests: nothing in this range.');
  });
});
