import type { Account, DetailedUsageReport } from '../../../contract';
import { api, expectStatus } from '../api';
import { field, h, replaceChildren } from '../dom';
import { formatCompact, formatInteger, formatUsd } from '../format';
import { navigate, paths, type PageContext } from '../router';
import { accountHeader, loadAccount, loaded, loading } from '../ui/layout';
import { announce, clearFormError, emptyState, showFormError } from '../ui/notice';
import { stackedBarChart, type ChartSeries } from '../usage/chart';
import { downloadText } from '../ui/download';
import { usageCsv } from '../usage/csv';
import { addDays, DEFAULT_RANGE_DAYS, eachDay, MAX_RANGE_DAYS, shanghaiToday } from '../usage/dates';

type Entry = DetailedUsageReport['keys'][number];
type Metric = (row: Entry['daily'][number]) => number;

const METRICS: {
  id: string;
  title: string;
  value: Metric;
  axis: (value: number) => string;
  exact: (value: number) => string;
  integer: boolean;
}[] = [
  { id: 'spend', title: 'Spend per day (USD)', value: (row) => row.spend_usd, axis: formatUsd, exact: formatUsd, integer: false },
  {
    id: 'requests',
    title: 'Requests per day',
    value: (row) => row.requests,
    axis: formatCompact,
    exact: (value) => `${formatInteger(value)} request${value === 1 ? '' : 's'}`,
    integer: true,
  },
  {
    id: 'tokens',
    title: 'Tokens per day (prompt + completion)',
    value: (row) => row.prompt_tokens + row.completion_tokens,
    axis: formatCompact,
    exact: (value) => `${formatInteger(value)} tokens`,
    integer: true,
  },
];

const keyLabel = (entry: Entry) => `${entry.name} (${entry.hint})`;

function seriesOf(report: DetailedUsageReport, metric: Metric): ChartSeries[] {
  return report.keys.map((entry, index) => ({
    label: keyLabel(entry),
    color: index,
    values: new Map(entry.daily.map((row) => [row.date, metric(row)])),
  }));
}

function summary(report: DetailedUsageReport): HTMLElement {
  const sum = (pick: (entry: Entry) => number) => report.keys.reduce((total, entry) => total + pick(entry), 0);
  const cards: [string, string][] = [
    ['Spend', formatUsd(sum((entry) => entry.total.spend_usd))],
    ['Requests', formatInteger(sum((entry) => entry.total.requests))],
    ['Prompt tokens', formatInteger(sum((entry) => entry.total.prompt_tokens))],
    ['Completion tokens', formatInteger(sum((entry) => entry.total.completion_tokens))],
  ];
  return h(
    'dl',
    { class: 'stats' },
    cards.map(([label, value]) => h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, value))),
  );
}

type Counts = Entry['total'];

/** The count columns of the totals and per-model tables; cached and cache writes are parts of the prompt tokens, reasoning of the completion tokens. */
const COUNT_COLUMNS: [string, (counts: Counts) => number, (value: number) => string][] = [
  ['Requests', (counts) => counts.requests, formatInteger],
  ['Prompt tokens', (counts) => counts.prompt_tokens, formatInteger],
  ['Cached', (counts) => counts.cached_tokens, formatInteger],
  ['Cache writes 5m', (counts) => counts.cache_write_tokens, formatInteger],
  ['Cache writes 1h', (counts) => counts.cache_write_1h_tokens, formatInteger],
  ['Completion tokens', (counts) => counts.completion_tokens, formatInteger],
  ['Reasoning', (counts) => counts.reasoning_tokens, formatInteger],
  ['Spend', (counts) => counts.spend_usd, formatUsd],
];

/** Each key's usage per model over the range (from the usage events; spend rounded once per model). */
function modelsTable(report: DetailedUsageReport): HTMLElement | null {
  const rows = report.keys.flatMap((entry) => entry.models.map((model) => ({ entry, model })));
  if (rows.length === 0) return null;
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table responsive models' },
      h('caption', {}, `Per key and model, ${report.start} to ${report.end}`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Key'),
          h('th', { scope: 'col' }, 'Model'),
          ...COUNT_COLUMNS.map(([title]) => h('th', { scope: 'col', class: 'number' }, title)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map(({ entry, model }) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row', 'data-label': 'Key' }, entry.name, ' ', h('code', { class: 'muted' }, entry.hint)),
            h('td', { 'data-label': 'Model' }, h('code', {}, model.model)),
            ...COUNT_COLUMNS.map(([title, pick, format]) => h('td', { class: 'number', 'data-label': title }, format(pick(model)))),
          ),
        ),
      ),
    ),
  );
}

function totalsTable(report: DetailedUsageReport): HTMLElement {
  const numbers = (total: Counts) =>
    COUNT_COLUMNS.map(([title, pick, format]) => h('td', { class: 'number', 'data-label': title }, format(pick(total))));
  const all = report.keys.reduce(
    (sum, entry) => ({
      spend_usd: sum.spend_usd + entry.total.spend_usd,
      requests: sum.requests + entry.total.requests,
      prompt_tokens: sum.prompt_tokens + entry.total.prompt_tokens,
      completion_tokens: sum.completion_tokens + entry.total.completion_tokens,
      cached_tokens: sum.cached_tokens + entry.total.cached_tokens,
      cache_write_tokens: sum.cache_write_tokens + entry.total.cache_write_tokens,
      cache_write_1h_tokens: sum.cache_write_1h_tokens + entry.total.cache_write_1h_tokens,
      reasoning_tokens: sum.reasoning_tokens + entry.total.reasoning_tokens,
    }),
    {
      spend_usd: 0,
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
    },
  );
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table responsive totals' },
      h('caption', {}, `Totals per key, ${report.start} to ${report.end}`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Key'),
          h('th', { scope: 'col' }, 'Status'),
          ...COUNT_COLUMNS.map(([title]) => h('th', { scope: 'col', class: 'number' }, title)),
        ),
      ),
      h(
        'tbody',
        {},
        report.keys.map((entry) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row', 'data-label': 'Key' }, entry.name, ' ', h('code', { class: 'muted' }, entry.hint)),
            h('td', { 'data-label': 'Status' }, entry.status === 'REVOKED' ? 'Revoked' : entry.blocked ? 'Blocked' : 'Active'),
            ...numbers(entry.total),
          ),
        ),
      ),
      h(
        'tfoot',
        {},
        h('tr', {}, h('th', { scope: 'row', 'data-label': 'Key' }, 'All keys'), h('td', { 'data-label': 'Status' }), ...numbers(all)),
      ),
    ),
  );
}

function results(account: Account, report: DetailedUsageReport, width: number): HTMLElement {
  if (report.keys.length === 0) {
    return emptyState('No keys to report', [
      'This account has no API keys yet. ',
      h('a', { href: paths.keys(account.id) }, 'Create one'),
      ' and its requests show up here.',
    ]);
  }
  const days = eachDay(report.start, report.end);
  const hasTraffic = report.keys.some((entry) => entry.daily.length > 0);
  const download = h('button', { type: 'button', class: 'button' }, 'Download CSV');
  download.addEventListener('click', () => {
    downloadText(`usage-${account.id}-${report.start}-${report.end}.csv`, usageCsv(report), 'text/csv;charset=utf-8');
    announce('CSV downloaded.');
  });
  return h(
    'div',
    { class: 'usage-results' },
    summary(report),
    hasTraffic
      ? h(
          'div',
          { class: 'charts' },
          METRICS.map((metric) =>
            stackedBarChart({
              metric: metric.id,
              title: metric.title,
              days,
              series: seriesOf(report, metric.value),
              formatAxis: metric.axis,
              formatValue: metric.exact,
              width,
              integer: metric.integer,
            }),
          ),
        )
      : emptyState(
          'No requests in this range',
          `None of the keys made a request between ${report.start} and ${report.end} (Asia/Shanghai days).`,
        ),
    totalsTable(report),
    modelsTable(report),
    h('div', { class: 'button-row' }, download),
  );
}

/** The account's usage by Asia/Shanghai day: range picker, per-key charts, totals, CSV. */
export async function usagePage({ main, params, query, isCurrent }: PageContext): Promise<void> {
  const accountId = params.accountId ?? '';
  loading(main, 'usage');
  const account = await loadAccount(accountId);
  if (!isCurrent()) return;
  const today = shanghaiToday();
  const end = query.get('end') ?? today;
  const start =
    query.get('start') ?? (query.get('end') ? safeAddDays(end, -(DEFAULT_RANGE_DAYS - 1)) : addDays(today, -(DEFAULT_RANGE_DAYS - 1)));

  const startInput = h('input', { type: 'date', name: 'start', value: start, required: true });
  const endInput = h('input', { type: 'date', name: 'end', value: end, required: true });
  const show = (from: string, to: string) =>
    navigate(`${paths.usage(accountId)}?start=${encodeURIComponent(from)}&end=${encodeURIComponent(to)}`);
  const preset = (days: number) => {
    const button = h('button', { type: 'button', class: 'button small' }, `Last ${days} days`);
    button.addEventListener('click', () => show(addDays(today, -(days - 1)), today));
    return button;
  };
  const refresh = h('button', { type: 'button', class: 'button small' }, 'Refresh');
  refresh.addEventListener('click', () => show(startInput.value, endInput.value));
  const form = h(
    'form',
    { class: 'card range-form', novalidate: true, 'aria-labelledby': 'range-title' },
    h('h2', { id: 'range-title', class: 'visually-hidden' }, 'Date range'),
    h(
      'div',
      { class: 'form-row' },
      field('From', startInput),
      field('To', endInput),
      h('button', { type: 'submit', class: 'button primary' }, 'Show'),
    ),
    h('div', { class: 'presets', role: 'group', 'aria-label': 'Quick ranges' }, preset(7), preset(30), preset(MAX_RANGE_DAYS), refresh),
    h('p', { class: 'hint' }, `Asia/Shanghai calendar days (UTC+8), at most ${MAX_RANGE_DAYS} days.`),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    show(startInput.value, endInput.value);
  });

  const resultSlot = h('div', { class: 'result-slot' }, h('p', { class: 'loading' }, 'Loading usage…'));
  loaded(main, accountHeader(account, 'Usage', 'usage'), form, resultSlot);
  main.setAttribute('aria-busy', 'true');

  let report: DetailedUsageReport;
  try {
    report = await expectStatus(
      api().admin.getUsage({ params: { accountId }, query: { start: startInput.value, end: endInput.value } }),
      200,
    );
  } catch (error) {
    if (!isCurrent()) return;
    replaceChildren(resultSlot);
    clearFormError(form);
    showFormError(form, error);
    return;
  }
  if (!isCurrent()) return;
  // The figure's border takes 2 px of the slot.
  const chartWidth = () => Math.max(280, resultSlot.clientWidth - 2);
  let width = chartWidth();
  replaceChildren(resultSlot, results(account, report, width));
  // Charts are drawn for their width (legible text on a phone): redraw when it changes a lot.
  const onResize = () => {
    if (!resultSlot.isConnected) return window.removeEventListener('resize', onResize);
    if (Math.abs(chartWidth() - width) < 40) return;
    width = chartWidth();
    const charts = resultSlot.querySelector('.charts');
    const fresh = results(account, report, width).querySelector('.charts');
    if (charts && fresh) charts.replaceWith(fresh);
  };
  window.addEventListener('resize', onResize);
}

function safeAddDays(day: string, count: number): string {
  try {
    return addDays(day, count);
  } catch {
    return day;
  }
}
