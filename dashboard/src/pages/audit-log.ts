import { api, expectStatus } from '../api';
import { auditChangeText } from '../audit-change';
import { h, replaceChildren } from '../dom';
import { formatDateTime } from '../format';
import { errorBox } from '../ui/notice';

const PAGE = 25;

/**
 * docs/operator-controls.md: the audit log, newest first, a page at a time. An owner's
 * session gets its own account's entries whatever it asks for.
 */
export function auditSection(accountId?: string): HTMLElement {
  const body = h('tbody');
  const more = h('button', { type: 'button', class: 'button small' }, 'Older entries');
  const messages = h('div', { class: 'messages' });
  let cursor: string | undefined;

  const load = async () => {
    more.disabled = true;
    try {
      const page = await expectStatus(api().admin.listAudit({ query: { account_id: accountId, limit: PAGE, cursor } }), 200);
      for (const entry of page.data) {
        body.append(
          h(
            'tr',
            {},
            h('td', { 'data-label': 'When' }, h('time', { datetime: entry.at, title: entry.at }, formatDateTime(entry.at))),
            h('td', { 'data-label': 'Who' }, entry.actor === 'operator' ? 'Operator' : 'Owner'),
            h('td', { 'data-label': 'What' }, h('code', {}, entry.action), ' ', h('code', {}, entry.target_id)),
            h('td', { 'data-label': 'Change' }, auditChangeText(entry)),
          ),
        );
      }
      cursor = page.next_cursor ?? undefined;
      // Styled buttons ignore the hidden attribute: hide by style.
      more.style.display = page.next_cursor === null ? 'none' : '';
      more.disabled = false;
    } catch (error) {
      replaceChildren(messages, errorBox(error, 'The audit log could not be read'));
      more.disabled = false;
    }
  };
  // `load` shows its own errors above the table.
  more.addEventListener('click', () => void load());
  void load();

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'audit-log' },
    h('h2', { id: 'audit-log' }, 'Audit log'),
    messages,
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'table responsive' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['When', 'Who', 'What', 'Change'].map((title) => h('th', { scope: 'col' }, title)),
          ),
        ),
        body,
      ),
    ),
    more,
  );
}
