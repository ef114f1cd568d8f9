import type { RequestDetail, RequestRecord } from '../../../contract';
import { api, expectStatus } from '../api';
import { field, h, replaceChildren } from '../dom';
import { formatDateTime, formatInteger } from '../format';
import { navigate, paths, type PageContext } from '../router';
import { isOperator } from '../state';
import { loaded, loading } from '../ui/layout';
import { emptyState, errorBox } from '../ui/notice';

const PAGE = 50;

/** The filters of GET /v1/admin/requests the page offers, by query parameter and label. */
const FILTERS: Array<{ name: 'account_id' | 'key_id' | 'model' | 'status' | 'error_code' | 'from' | 'to'; label: string; hint?: string }> =
  [
    { name: 'account_id', label: 'Account id' },
    { name: 'key_id', label: 'Key id' },
    { name: 'model', label: 'Model' },
    { name: 'status', label: 'Status', hint: 'e.g. 429; 499 when the client went away.' },
    { name: 'error_code', label: 'Error code', hint: 'e.g. rate_limit_exceeded.' },
    { name: 'from', label: 'From', hint: 'ISO 8601 time, e.g. 2026-11-28T14:00:00Z.' },
    { name: 'to', label: 'To', hint: 'ISO 8601 time (not included).' },
  ];

const ms = (value: number | null): string => (value === null ? '—' : `${formatInteger(value)} ms`);

function statusText(record: RequestRecord): string {
  return record.error_code === null ? String(record.status) : `${record.status} ${record.error_code}`;
}

/**
 * docs/request-log.md: the request log, newest first, with the API's filters in the address
 * (a filtered view can be bookmarked). An owner's session gets its own account's records only.
 */
export async function requestsPage({ main, query, isCurrent }: PageContext): Promise<void> {
  loading(main, 'requests');
  const filters: Record<string, string> = {};
  for (const filter of FILTERS) {
    const value = query.get(filter.name);
    if (value) filters[filter.name] = value;
  }
  const inputs = FILTERS.filter((filter) => filter.name !== 'account_id' || isOperator()).map((filter) => {
    const input = h('input', { type: 'text', name: filter.name, autocomplete: 'off', value: filters[filter.name] ?? '' });
    return { filter, input };
  });
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filters' },
    inputs.map(({ filter, input }) => field(filter.label, input, filter.hint)),
    h('div', { class: 'button-row' }, h('button', { type: 'submit', class: 'button primary' }, 'Show requests')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const { filter, input } of inputs) if (input.value.trim() !== '') next.set(filter.name, input.value.trim());
    const search = next.toString();
    navigate(`${paths.requests()}${search ? `?${search}` : ''}`);
  });

  const body = h('tbody');
  const messages = h('div', { class: 'messages' });
  const bodiesNote = h('p', { class: 'muted', 'data-note': 'bodies' });
  const tableSlot = h('div');
  const more = h('button', { type: 'button', class: 'button small' }, 'Older requests');
  let cursor: string | undefined;
  let shown = 0;

  const load = async () => {
    more.disabled = true;
    try {
      const page = await expectStatus(api().requests.listRequests({ query: { ...filters, limit: PAGE, cursor } }), 200);
      if (!isCurrent()) return;
      if (page.account_bodies_kept !== null) {
        bodiesNote.textContent = page.account_bodies_kept
          ? 'The operator keeps the request and response bodies of this account’s requests.'
          : 'Request and response bodies of this account’s requests are not kept (the operator may keep them for chosen keys).';
      }
      for (const record of page.data) body.append(requestRow(record));
      shown += page.data.length;
      if (shown === 0) replaceChildren(tableSlot, emptyState('No requests', 'No model request matches these filters.'));
      cursor = page.next_cursor ?? undefined;
      // Styled buttons ignore the hidden attribute: hide by style.
      more.style.display = page.next_cursor === null ? 'none' : '';
      more.disabled = false;
    } catch (error) {
      replaceChildren(messages, errorBox(error, 'The request log could not be read'));
      more.disabled = false;
    }
  };
  more.addEventListener('click', () => void load());
  replaceChildren(
    tableSlot,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'table responsive' },
        h('caption', { class: 'visually-hidden' }, 'Requests'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['When', 'Route', 'Model', 'Status', 'Tokens', 'Cost (USD)', 'Latency'].map((title) => h('th', { scope: 'col' }, title)),
          ),
        ),
        body,
      ),
    ),
  );
  await load();
  if (!isCurrent()) return;
  loaded(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', { tabindex: '-1' }, 'Requests'),
      h('p', { class: 'muted' }, 'Every model request, newest first: answered, refused or failed.'),
    ),
    form,
    bodiesNote,
    messages,
    tableSlot,
    more,
  );
}

function requestRow(record: RequestRecord): HTMLElement {
  return h(
    'tr',
    {},
    h(
      'td',
      { 'data-label': 'When' },
      h(
        'a',
        { href: paths.request(record.id) },
        h('time', { datetime: record.received_at, title: record.received_at }, formatDateTime(record.received_at)),
      ),
    ),
    h('td', { 'data-label': 'Route' }, h('code', {}, record.route)),
    h('td', { 'data-label': 'Model' }, record.model ?? record.requested_model ?? '—'),
    h('td', { 'data-label': 'Status' }, statusText(record)),
    h(
      'td',
      { 'data-label': 'Tokens', class: 'number' },
      `${formatInteger(record.tokens.prompt)} / ${formatInteger(record.tokens.completion)}`,
    ),
    h('td', { 'data-label': 'Cost (USD)', class: 'number' }, record.cost_usd),
    h('td', { 'data-label': 'Latency', class: 'number' }, ms(record.latency_ms)),
  );
}

/** One request: its timings, tokens, cost, and its bodies when they were kept. */
export async function requestPage({ main, params, isCurrent }: PageContext): Promise<void> {
  loading(main, 'the request');
  const record = await expectStatus(api().requests.getRequest({ params: { requestId: params.requestId ?? '' } }), 200);
  if (!isCurrent()) return;
  loaded(
    main,
    h(
      'nav',
      { class: 'breadcrumb', 'aria-label': 'Breadcrumb' },
      h('a', { href: paths.requests() }, 'Requests'),
      h('span', { 'aria-hidden': 'true' }, ' / '),
      h('span', {}, record.request_id),
    ),
    h('div', { class: 'page-head' }, h('h1', { tabindex: '-1' }, 'Request'), h('p', { class: 'muted' }, h('code', {}, record.request_id))),
    h('section', { class: 'card', 'aria-label': 'Facts' }, facts(record)),
    bodies(record),
  );
}

function facts(record: RequestDetail): HTMLElement {
  const rows: Array<[string, string]> = [
    ['Received', `${formatDateTime(record.received_at)} (${record.received_at})`],
    ['Route', record.route],
    ['Account', record.account_id ?? '—'],
    ['Key', record.key_id ?? '—'],
    ['Model asked for', record.requested_model ?? '—'],
    ['Answered by', record.model === null ? '—' : `${record.model} (${record.provider ?? '—'})`],
    ['Streamed', record.stream ? 'yes' : 'no'],
    ['Status', statusText(record)],
    ['Latency', ms(record.latency_ms)],
    ['First byte', ms(record.first_byte_ms)],
    ['Upstream', ms(record.upstream_ms)],
    ['Upstream calls', formatInteger(record.upstream_attempts)],
    ['Prompt tokens', formatInteger(record.tokens.prompt)],
    ['Completion tokens', formatInteger(record.tokens.completion)],
    [
      'Cached / cache writes',
      `${formatInteger(record.tokens.cached)} / ${formatInteger(record.tokens.cache_write + record.tokens.cache_write_1h)}`,
    ],
    ['Reasoning tokens', formatInteger(record.tokens.reasoning)],
    ['Cost (USD)', record.cost_usd],
    ['Client', `${record.client_ip ?? '—'} · ${record.user_agent ?? '—'}`],
    ['Session', record.session_id ?? '—'],
  ];
  return h(
    'dl',
    { class: 'facts' },
    rows.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

function bodies(record: RequestDetail): HTMLElement {
  if (!record.bodies_kept) {
    return h(
      'section',
      { class: 'card', 'aria-labelledby': 'bodies' },
      h('h2', { id: 'bodies' }, 'Bodies'),
      h('p', { class: 'muted' }, 'Not kept: the operator keeps request and response bodies only for the accounts and keys it chooses.'),
    );
  }
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'bodies' },
    h('h2', { id: 'bodies' }, 'Bodies'),
    h('h3', {}, 'Request'),
    h('pre', { class: 'body-text', 'data-body': 'request' }, record.request_body ?? ''),
    h('h3', {}, 'Response'),
    h('pre', { class: 'body-text', 'data-body': 'response' }, record.response_body ?? ''),
  );
}
