import { api, expectStatus } from '../api';
import { h, replaceChildren } from '../dom';
import { formatDateTime } from '../format';
import type { PageContext } from '../router';
import { confirmDialog } from '../ui/dialog';
import { accountHeader, loadAccount, loaded, loading } from '../ui/layout';
import { announce, emptyState, errorBox } from '../ui/notice';
import { secretPanel } from '../ui/secret';

/**
 * The account's settings: its usage query key, generated here. Generating a new one replaces
 * the old one at once (docs/keys-and-accounts.md).
 */
export async function settingsPage({ main, params, isCurrent }: PageContext): Promise<void> {
  const accountId = params.accountId ?? '';
  loading(main, 'settings');
  const [account, initial] = await Promise.all([
    loadAccount(accountId),
    expectStatus(api().admin.getUsageKey({ params: { accountId } }), 200),
  ]);
  if (!isCurrent()) return;

  let info = initial;
  const current = h('div', { class: 'usage-key-state' });
  const secretSlot = h('div', { class: 'secret-slot' });
  const messages = h('div', { class: 'messages' });
  const button = h('button', { type: 'button', class: 'button primary' });

  const draw = () => {
    button.textContent = info.exists ? 'Rotate usage key' : 'Generate usage key';
    replaceChildren(
      current,
      info.exists && info.hint && info.created_at
        ? h(
            'dl',
            { class: 'facts' },
            h('dt', {}, 'Current key'),
            h('dd', {}, h('code', {}, info.hint)),
            h('dt', {}, 'Created'),
            h('dd', {}, h('time', { datetime: info.created_at, title: info.created_at }, formatDateTime(info.created_at))),
          )
        : emptyState('No usage query key yet', 'Generate one to read this account’s usage report from scripts or a spreadsheet.'),
    );
  };

  // The dialog only resolves; the request's errors are shown in `messages`.
  button.addEventListener('click', () => {
    void (async () => {
      if (info.exists) {
        const confirmed = await confirmDialog({
          title: 'Rotate the usage query key?',
          message: `The current key (${info.hint ?? 'uk-…'}) stops working at once; whatever uses it needs the new one.`,
          confirmLabel: 'Rotate key',
          danger: true,
        });
        if (!confirmed) return;
      }
      replaceChildren(messages);
      button.disabled = true;
      try {
        const created = await expectStatus(api().admin.createUsageKey({ params: { accountId } }), 201);
        info = { exists: true, hint: created.hint, created_at: created.created_at };
        draw();
        const panel = secretPanel({
          title: 'Your new usage query key',
          note: 'Copy it now: it is shown only this once. It reads GET /v1/usage/keys and cannot call models.',
          secret: created.key,
          label: 'Usage query key',
          onDone: () => button.focus(),
        });
        replaceChildren(secretSlot, panel);
        panel.focus();
        announce('New usage query key generated; the previous one no longer works.');
      } catch (error) {
        replaceChildren(messages, errorBox(error, 'No new key'));
      } finally {
        button.disabled = false;
      }
    })();
  });

  draw();
  const origin = window.location.origin;
  loaded(
    main,
    accountHeader(account, 'Settings', 'settings'),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'usage-key-title' },
      h('h2', { id: 'usage-key-title' }, 'Usage query key'),
      h(
        'p',
        {},
        'A read-only key (',
        h('code', {}, 'uk-…'),
        ') for the per-key usage report of this account. It cannot call models, and an account has at most one: a new one replaces the old.',
      ),
      current,
      messages,
      h('div', { class: 'button-row' }, button),
      secretSlot,
      h(
        'details',
        { class: 'example' },
        h('summary', {}, 'How to use it'),
        h('pre', {}, h('code', {}, `curl "${origin}/v1/usage/keys?start=2026-11-01&end=2026-11-30" \\\n  -H "Authorization: Bearer uk-…"`)),
      ),
    ),
  );
}
