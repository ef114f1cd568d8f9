/**
 * The geometry of the usage page's stacked bar chart, without the DOM: axis ticks, one bar
 * segment per key and day, day labels and the one-sentence summary. chart.ts draws it.
 */
import { shortDay } from './dates';

export interface ChartSeries {
  label: string;
  /** Palette index: the same key has the same colour in every chart. */
  color: number;
  /** Value per YYYY-MM-DD; missing days are 0. */
  values: Map<string, number>;
}

export interface LayoutOptions {
  title: string;
  days: string[];
  series: ChartSeries[];
  formatAxis: (value: number) => string;
  formatValue: (value: number) => string;
  /** Drawing width in CSS pixels. */
  width: number;
  /** Counts: axis steps are whole numbers. */
  integer?: boolean | undefined;
}

export interface BarSegment {
  day: string;
  series: ChartSeries;
  value: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ChartLayout {
  left: number;
  plotWidth: number;
  ticks: { value: number; y: number; label: string }[];
  bars: BarSegment[];
  labels: { day: string; x: number }[];
  grandTotal: number;
  summary: string;
}

export const CHART_HEIGHT = 240;
const MARGIN = { top: 12, right: 16, bottom: 26 };
/** Roughly the width of one axis-label character at 11px. */
const CHARACTER_WIDTH = 6.6;

/** 1, 2, 2.5 or 5 times a power of ten, at or above `value`: readable axis steps. */
export function niceCeil(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

export function chartLayout(options: LayoutOptions): ChartLayout {
  const { days, series, width } = options;
  const totals = days.map((day) => series.reduce((sum, entry) => sum + (entry.values.get(day) ?? 0), 0));
  const grandTotal = totals.reduce((sum, value) => sum + value, 0);
  const rawStep = niceCeil(Math.max(...totals, 0) / 4);
  const top = (options.integer ? Math.max(1, Math.ceil(rawStep)) : rawStep) * 4;
  const tickValues = [0, 1, 2, 3, 4].map((step) => (top * step) / 4);
  // The left margin fits the longest axis label.
  const left = 24 + CHARACTER_WIDTH * Math.max(...tickValues.map((value) => options.formatAxis(value).length));
  const plotWidth = Math.max(120, width - left - MARGIN.right);
  const plotHeight = CHART_HEIGHT - MARGIN.top - MARGIN.bottom;
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(1, Math.min(28, slot * 0.72));
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight;

  const labelEvery = Math.ceil(days.length / Math.max(2, Math.floor(plotWidth / 56)));
  const bars: BarSegment[] = [];
  const labels: { day: string; x: number }[] = [];
  days.forEach((day, index) => {
    const center = left + slot * index + slot / 2;
    let base = 0;
    for (const entry of series) {
      const value = entry.values.get(day) ?? 0;
      if (value <= 0) continue;
      const rectTop = y(base + value);
      bars.push({
        day,
        series: entry,
        value,
        x: center - barWidth / 2,
        y: rectTop,
        width: barWidth,
        height: Math.max(1, y(base) - rectTop),
      });
      base += value;
    }
    if (index % labelEvery === 0) labels.push({ day, x: center });
  });

  const busiest = totals.indexOf(Math.max(...totals));
  const summary =
    grandTotal === 0
      ? `${options.title}: nothing in this range.`
      : `${options.title}: ${options.formatValue(grandTotal)} in total over ${days.length} days; most on ${shortDay(days[busiest] ?? '')} (${options.formatValue(totals[busiest] ?? 0)}).`;
  return {
    left,
    plotWidth,
    ticks: tickValues.map((value) => ({ value, y: y(value), label: options.formatAxis(value) })),
    bars,
    labels,
    grandTotal,
    summary,
  };
}
