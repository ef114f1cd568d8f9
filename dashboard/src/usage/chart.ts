import { h, svg } from '../dom';
import { CHART_HEIGHT, chartLayout, type LayoutOptions } from './chart-layout';
import { shortDay } from './dates';

export type { ChartSeries } from './chart-layout';

export interface ChartOptions extends LayoutOptions {
  metric: string;
}

/** The number of colours in styles/usage.css (.series-0 … .series-7); more keys reuse them. */
const PALETTE_SIZE = 8;

/**
 * A stacked bar chart by day, one colour per key, hand-written SVG (no chart library). Each
 * segment has a tooltip (<title>); the figure is labelled with a one-sentence summary, and
 * the totals table below the charts carries the same numbers for screen readers.
 */
export function stackedBarChart(options: ChartOptions): HTMLElement {
  const { days, series, width } = options;
  const layout = chartLayout(options);
  const grid = layout.ticks.map((tick, step) =>
    svg(
      'g',
      { class: 'tick' },
      svg('line', { class: step === 0 ? 'axis' : 'grid', x1: layout.left, x2: layout.left + layout.plotWidth, y1: tick.y, y2: tick.y }),
      svg('text', { x: layout.left - 6, y: tick.y, dy: '0.32em', 'text-anchor': 'end' }, tick.label),
    ),
  );
  const bars = layout.bars.map((bar) =>
    svg(
      'rect',
      {
        class: `bar series-${bar.series.color % PALETTE_SIZE}`,
        x: bar.x,
        y: bar.y,
        width: bar.width,
        height: bar.height,
        'data-day': bar.day,
        'data-value': bar.value,
      },
      svg('title', {}, `${shortDay(bar.day)} · ${bar.series.label}: ${options.formatValue(bar.value)}`),
    ),
  );
  const labels = layout.labels.map((label) =>
    svg('text', { x: label.x, y: CHART_HEIGHT - 8, 'text-anchor': 'middle' }, shortDay(label.day)),
  );
  const chart = svg(
    'svg',
    {
      class: 'chart',
      viewBox: `0 0 ${width} ${CHART_HEIGHT}`,
      width,
      height: CHART_HEIGHT,
      role: 'img',
      'aria-label': layout.summary,
      preserveAspectRatio: 'xMinYMin meet',
    },
    grid,
    bars,
    labels,
  );
  // The legend names the keys that appear in this chart.
  const shown = series.filter((entry) => days.some((day) => (entry.values.get(day) ?? 0) > 0));
  const legend = h(
    'ul',
    { class: 'legend', 'aria-label': `Keys in ${options.title}` },
    shown.map((entry) =>
      h('li', {}, h('span', { class: `swatch series-${entry.color % PALETTE_SIZE}`, 'aria-hidden': 'true' }), entry.label),
    ),
  );
  return h(
    'figure',
    { class: 'chart-figure', 'data-metric': options.metric, 'data-total': layout.grandTotal },
    h('figcaption', {}, options.title),
    chart,
    shown.length > 0 ? legend : null,
  );
}
