import { h, svg } from '../dom';
import { shortDay } from './dates';

export interface ChartSeries {
  label: string;
  /** Palette index: the same key has the same colour in every chart. */
  color: number;
  /** Value per YYYY-MM-DD; missing days are 0. */
  values: Map<string, number>;
}

export interface ChartOptions {
  metric: string;
  title: string;
  days: string[];
  series: ChartSeries[];
  /** Axis labels (short) and tooltips (exact). */
  formatAxis: (value: number) => string;
  formatValue: (value: number) => string;
  /** Drawing width in CSS pixels: the chart is drawn for the space it has, so text stays legible. */
  width: number;
  /** Counts: axis steps are whole numbers. */
  integer?: boolean;
}

/** The number of colours in styles.css (.series-0 … .series-7); more keys reuse them. */
const PALETTE_SIZE = 8;
const HEIGHT = 240;
const MARGIN = { top: 12, right: 16, bottom: 26 };
/** Roughly the width of one axis-label character at 11px. */
const CHARACTER_WIDTH = 6.6;

/** 1, 2, 2.5 or 5 times a power of ten, at or above `value`: readable axis steps. */
function niceCeil(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

/**
 * A stacked bar chart by day, one colour per key, hand-written SVG (no chart library). Each
 * segment has a tooltip (<title>); the figure is labelled with a one-sentence summary, and
 * the totals table below the charts carries the same numbers for screen readers.
 */
export function stackedBarChart(options: ChartOptions): HTMLElement {
  const { days, series, width } = options;
  const totals = days.map((day) => series.reduce((sum, entry) => sum + (entry.values.get(day) ?? 0), 0));
  const grandTotal = totals.reduce((sum, value) => sum + value, 0);
  const rawStep = niceCeil(Math.max(...totals, 0) / 4);
  const top = (options.integer ? Math.max(1, Math.ceil(rawStep)) : rawStep) * 4;
  const tickValues = [0, 1, 2, 3, 4].map((step) => (top * step) / 4);
  // The left margin fits the longest axis label.
  const left = 24 + CHARACTER_WIDTH * Math.max(...tickValues.map((value) => options.formatAxis(value).length));
  const plotWidth = Math.max(120, width - left - MARGIN.right);
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(1, Math.min(28, slot * 0.72));
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight;

  const grid = tickValues.map((value, step) =>
    svg(
      'g',
      { class: 'tick' },
      svg('line', { class: step === 0 ? 'axis' : 'grid', x1: left, x2: left + plotWidth, y1: y(value), y2: y(value) }),
      svg('text', { x: left - 6, y: y(value), dy: '0.32em', 'text-anchor': 'end' }, options.formatAxis(value)),
    ),
  );

  const labelEvery = Math.ceil(days.length / Math.max(2, Math.floor(plotWidth / 56)));
  const bars: SVGElement[] = [];
  const labels: SVGElement[] = [];
  days.forEach((day, index) => {
    const center = left + slot * index + slot / 2;
    let base = 0;
    series.forEach((entry) => {
      const value = entry.values.get(day) ?? 0;
      if (value <= 0) return;
      const rectTop = y(base + value);
      const height = Math.max(1, y(base) - rectTop);
      bars.push(
        svg(
          'rect',
          { class: `bar series-${entry.color % PALETTE_SIZE}`, x: center - barWidth / 2, y: rectTop, width: barWidth, height, 'data-day': day, 'data-value': value },
          svg('title', {}, `${shortDay(day)} · ${entry.label}: ${options.formatValue(value)}`),
        ),
      );
      base += value;
    });
    if (index % labelEvery === 0) {
      labels.push(svg('text', { x: center, y: HEIGHT - 8, 'text-anchor': 'middle' }, shortDay(day)));
    }
  });

  const busiest = totals.indexOf(Math.max(...totals));
  const summary =
    grandTotal === 0
      ? `${options.title}: nothing in this range.`
      : `${options.title}: ${options.formatValue(grandTotal)} in total over ${days.length} days; most on ${shortDay(days[busiest] ?? '')} (${options.formatValue(totals[busiest] ?? 0)}).`;
  const chart = svg(
    'svg',
    { class: 'chart', viewBox: `0 0 ${width} ${HEIGHT}`, width, height: HEIGHT, role: 'img', 'aria-label': summary, preserveAspectRatio: 'xMinYMin meet' },
    grid,
    bars,
    labels,
  );
  // The legend names the keys that appear in this chart.
  const shown = series.filter((entry) => days.some((day) => (entry.values.get(day) ?? 0) > 0));
  const legend = h(
    'ul',
    { class: 'legend', 'aria-label': `Keys in ${options.title}` },
    shown.map((entry) => h('li', {}, h('span', { class: `swatch series-${entry.color % PALETTE_SIZE}`, 'aria-hidden': 'true' }), entry.label)),
  );
  return h('figure', { class: 'chart-figure', 'data-metric': options.metric, 'data-total': grandTotal }, h('figcaption', {}, options.title), chart, shown.length > 0 ? legend : null);
}
