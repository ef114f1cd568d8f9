import type { Account } from '../../../contract';
import { api, expectStatus } from '../api';
import { field, h, replaceChildren } from '../dom';
import { formatDateTime, formatInteger } from '../format';
import { navigate, paths, type PageContext } from '../router';
import { isOperator, ownAccountId } from '../state';
import { loaded, loading } from '../ui/layout';
import { announce, clearFormError, emptyState, errorBox, showFormError } from '../ui/notice';
import { secretPanel } from '../ui/secret';
import { formDialog } from '../ui/dialog';
import { auditSection } from './audit-log';
import { budgetInputs, budgetSummary, budgetText, changedBudget } from './budget-settings';
import { modelsInput, modelsText, readModels } from './key-settings';

/** The operator's list of accounts: create one, open its keys and usage, hand its owner a login link. */
export async function accountsPage({ main, isCurrent }: PageContext): Promise<void> {
  const own = ownAccountId();
  if (!isOperator() && own) {
    navigate(paths.keys(own), { replace: true });
    return;
  }
  loading(main, 'accounts');
  const list = await expectStatus(api().admin.listAccounts(), 200);
  if (!isCurrent()) return;

  const slot = h('div', { class: 'secret-slot' });
  const tableSlot = h('div');
  let accounts = list.data;

  const drawTable = () =>
    replaceChildren(
      tableSlot,
      accountsTable(accounts, slot, (updated) => {
        accounts = accounts.map((account) => (account.id === updated.id ? updated : account));
        drawTable();
      }),
    );

  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '100', autocomplete: 'off' });
  const submit = h('button', { type: 'submit', class: 'button primary' }, 'Create account');
  const form = h(
    'form',
    { class: 'card inline-form', novalidate: true, 'aria-labelledby': 'create-account' },
    h('h2', { id: 'create-account' }, 'New account'),
    h('div', { class: 'form-row' }, field('Account name', name), submit),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearFormError(form);
    submit.disabled = true;
    expectStatus(api().admin.createAccount({ body: { name: name.value } }), 201).then(
      (account) => {
        submit.disabled = false;
        name.value = '';
        accounts = [...accounts, account];
        drawTable();
        announce(`Account “${account.name}” created.`);
      },
      (error: unknown) => {
        submit.disabled = false;
        showFormError(form, error);
      },
    );
  });

  drawTable();
  loaded(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', { tabindex: '-1' }, 'Accounts'),
      h('p', { class: 'muted' }, 'Every account of this gateway. Each owns its API keys, its usage query key and its usage.'),
    ),
    form,
    slot,
    tableSlot,
    auditSection(),
  );
}

/** A ceiling field: empty = none. */
function ceilingInput(name: 'rpm' | 'tpm', value: number | null): HTMLInputElement {
  return h('input', { type: 'number', name, min: '1', step: '1', inputmode: 'numeric', value: value ?? '', placeholder: 'no ceiling' });
}

function readCeiling(input: HTMLInputElement): number | null {
  const text = input.value.trim();
  return text === '' ? null : Number(text);
}

function ceilingsText(account: Account): string {
  const part = (value: number | null, unit: string) => (value === null ? `any ${unit}` : `≤ ${formatInteger(value)} ${unit}`);
  return `${part(account.rpm, 'RPM')} · ${part(account.tpm, 'TPM')} · ${modelsText(account.models)}`;
}

/** docs/operator-controls.md: the account's ceilings, which its owner's keys stay within. */
function editCeilings(account: Account, onSaved: (account: Account) => void, returnFocus: () => HTMLElement | null): void {
  const rpm = ceilingInput('rpm', account.rpm);
  const tpm = ceilingInput('tpm', account.tpm);
  const models = modelsInput(account.models);
  const budget = budgetInputs(account.budget);
  formDialog({
    title: `Ceilings of “${account.name}”`,
    description: 'Every key of the account stays within them; its owner cannot raise them. Empty = no ceiling.',
    fields: [
      field('Requests per minute (RPM)', rpm),
      field('Tokens per minute (TPM)', tpm),
      field('Models', models, 'Model ids or prefix* patterns, comma-separated; empty = every model.'),
      field('Budget (USD)', budget.amount, 'Spend budget over all the account’s keys; empty = none.'),
      field('Budget period', budget.period, 'Calendar periods in Asia/Shanghai.'),
      field('Budget alerts', budget.alerts, 'Optional fractions, comma-separated, e.g. 0.8.'),
    ],
    submitLabel: 'Save ceilings',
    returnFocus,
    onSubmit: async () => {
      const body = {
        rpm: readCeiling(rpm),
        tpm: readCeiling(tpm),
        models: readModels(models),
        budget: changedBudget(budget, account.budget),
      };
      const updated = await expectStatus(api().admin.updateAccount({ params: { accountId: account.id }, body }), 200);
      onSaved(updated);
      announce(`Ceilings of “${updated.name}”: ${ceilingsText(updated)} · ${budgetText(updated.budget)}.`);
    },
  });
}

function accountsTable(accounts: Account[], slot: HTMLElement, onSaved: (account: Account) => void): HTMLElement {
  if (accounts.length === 0) {
    return emptyState('No accounts yet', [
      'Create the first one above, or on the command line: ',
      h('code', {}, 'model-gateway accounts create --name NAME'),
      '.',
    ]);
  }
  const rows = accounts.map((account) => {
    const linkButton = h(
      'button',
      { type: 'button', class: 'button small', 'aria-label': `Create a login link for ${account.name}` },
      'Login link',
    );
    linkButton.addEventListener('click', () => {
      linkButton.disabled = true;
      expectStatus(api().admin.createLoginLink({ params: { accountId: account.id } }), 201).then(
        (link) => {
          linkButton.disabled = false;
          const panel = secretPanel({
            title: `Login link for ${account.name}`,
            note: `Send it to the account's owner: it signs them in to this account only, works once, and expires ${formatDateTime(link.expires_at)}. It is not shown again.`,
            secret: link.url,
            label: `Login link for ${account.name}`,
            onDone: () => linkButton.focus(),
          });
          replaceChildren(slot, panel);
          panel.focus();
        },
        (error: unknown) => {
          linkButton.disabled = false;
          replaceChildren(slot, errorBox(error, 'No login link'));
        },
      );
    });
    const ceilings = h(
      'button',
      { type: 'button', class: 'button small', 'aria-label': `Change the ceilings of ${account.name}` },
      'Ceilings',
    );
    ceilings.addEventListener('click', () => editCeilings(account, onSaved, () => ceilings));
    return h(
      'tr',
      {},
      h('th', { scope: 'row', 'data-label': 'Name' }, h('a', { href: paths.keys(account.id) }, account.name)),
      h('td', { 'data-label': 'ID' }, h('code', {}, account.id)),
      h(
        'td',
        { 'data-label': 'Ceilings' },
        ceilingsText(account),
        account.budget === null ? null : [h('br'), budgetSummary(account.budget, { accountId: account.id })],
      ),
      h(
        'td',
        { 'data-label': 'Created' },
        h('time', { datetime: account.created_at, title: account.created_at }, formatDateTime(account.created_at)),
      ),
      h(
        'td',
        { 'data-label': 'Actions' },
        h(
          'div',
          { class: 'actions' },
          h('a', { class: 'button small', href: paths.keys(account.id), 'aria-label': `API keys of ${account.name}` }, 'Keys'),
          h('a', { class: 'button small', href: paths.usage(account.id), 'aria-label': `Usage of ${account.name}` }, 'Usage'),
          ceilings,
          linkButton,
        ),
      ),
    );
  });
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'table responsive' },
      h('caption', { class: 'visually-hidden' }, 'Accounts'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Name'),
          h('th', { scope: 'col' }, 'ID'),
          h('th', { scope: 'col' }, 'Ceilings'),
          h('th', { scope: 'col' }, 'Created'),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      h('tbody', {}, rows),
    ),
  );
}
