import type { ApiKey } from '../../../contract';
import { ApiError, api, expectStatus } from '../api';
import { field, h, replaceChildren } from '../dom';
import { formatDateTime, formatInteger } from '../format';
import type { PageContext } from '../router';
import { confirmDialog, formDialog } from '../ui/dialog';
import { accountHeader, loadAccount, loaded, loading } from '../ui/layout';
import { announce, clearFormError, emptyState, errorBox, showFormError } from '../ui/notice';
import { secretPanel } from '../ui/secret';
import { isOperator } from '../state';
import { auditSection } from './audit-log';
import { accountBudgetNote, budgetInputs, budgetSummary, budgetText, changedBudget, readBudget } from './budget-settings';
import {
  expiresInput,
  graceInput,
  ifChanged,
  keyTimesText,
  modelsInput,
  modelsText,
  operatorSetNote,
  readExpires,
  readGrace,
  readModels,
  settingHint,
} from './key-settings';

function limitInput(name: 'rpm' | 'tpm', value: number | null = null): HTMLInputElement {
  return h('input', { type: 'number', name, min: '1', step: '1', inputmode: 'numeric', value: value ?? '', placeholder: 'default' });
}

/** A limit field: empty = the gateway's default; else a whole number of at least 1. */
function readLimit(input: HTMLInputElement): number | null {
  const text = input.value.trim();
  if (text === '') return null;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new ApiError(
      400,
      `${input.name === 'rpm' ? 'Requests' : 'Tokens'} per minute must be a whole number of at least 1, or empty for the default.`,
      'invalid_value',
      input.name,
    );
  }
  return value;
}

function statusBadge(key: ApiKey): HTMLElement {
  if (key.status === 'REVOKED') return h('span', { class: 'badge badge-revoked' }, 'Revoked');
  if (key.blocked) {
    return h(
      'span',
      {},
      h('span', { class: 'badge badge-blocked' }, 'Blocked'),
      h('small', { class: 'muted' }, key.blocked_by === 'owner' ? ' by the owner' : ' by the operator'),
    );
  }
  if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) return h('span', { class: 'badge badge-blocked' }, 'Expired');
  return h('span', { class: 'badge badge-active' }, 'Active');
}

function limitsText(key: ApiKey): string {
  const part = (value: number | null, unit: string) => `${value === null ? 'default' : formatInteger(value)} ${unit}`;
  return `${part(key.rpm, 'RPM')} · ${part(key.tpm, 'TPM')}`;
}

/** An account's API keys: create (the key shown once), rename, limits, block/unblock, revoke. */
export async function keysPage({ main, params, isCurrent }: PageContext): Promise<void> {
  const accountId = params.accountId ?? '';
  loading(main, 'API keys');
  const [account, list] = await Promise.all([loadAccount(accountId), expectStatus(api().admin.listKeys({ params: { accountId } }), 200)]);
  if (!isCurrent()) return;

  let keys: ApiKey[] = list.data;
  const messages = h('div', { class: 'messages' });
  const tableSlot = h('div');

  const replace = (updated: ApiKey) => {
    keys = keys.map((key) => (key.id === updated.id ? updated : key));
    draw();
  };

  const rowHeader = (keyId: string) => tableSlot.querySelector<HTMLElement>(`[data-key-id="${CSS.escape(keyId)}"] th`);

  /** Runs a key action; its error (from the envelope) is shown above the table. */
  const act = async (button: HTMLButtonElement, action: () => Promise<ApiKey>, done: (key: ApiKey) => string) => {
    replaceChildren(messages);
    button.disabled = true;
    try {
      const updated = await action();
      replace(updated);
      announce(done(updated));
      // The row was redrawn, its buttons with it: focus stays on the row.
      rowHeader(updated.id)?.focus();
    } catch (error) {
      button.disabled = false;
      replaceChildren(messages, errorBox(error, 'The key was not changed'));
    }
  };

  const rowActions = (key: ApiKey): HTMLElement => {
    if (key.status === 'REVOKED') {
      return h('span', { class: 'muted' }, key.revoked_at ? `Revoked ${formatDateTime(key.revoked_at)}` : 'Revoked');
    }
    const rename = h('button', { type: 'button', class: 'button small', 'aria-label': `Rename key ${key.name}` }, 'Rename');
    rename.addEventListener('click', () => {
      const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '100', value: key.name, autocomplete: 'off' });
      formDialog({
        title: `Rename “${key.name}”`,
        fields: [field('Name', name)],
        submitLabel: 'Save name',
        returnFocus: () => rowHeader(key.id),
        onSubmit: async () => {
          const updated = await expectStatus(api().admin.updateKey({ params: { keyId: key.id }, body: { name: name.value } }), 200);
          replace(updated);
          announce(`Key renamed to “${updated.name}”.`);
        },
      });
    });
    const limits = h('button', { type: 'button', class: 'button small', 'aria-label': `Change the limits of key ${key.name}` }, 'Limits');
    limits.addEventListener('click', () => {
      const rpm = limitInput('rpm', key.rpm);
      const tpm = limitInput('tpm', key.tpm);
      const models = modelsInput(key.models);
      const expires = expiresInput(key.expires_at);
      const budget = budgetInputs(key.budget);
      const hint = (setting: keyof ApiKey['set_by'], text: string) => settingHint(key, setting, text, isOperator());
      formDialog({
        title: `Limits of “${key.name}”`,
        description: 'Per minute, shared by chat and embeddings, within the account’s ceilings. Leave a field empty for the default.',
        fields: [
          field('Requests per minute (RPM)', rpm, hint('rpm', '')),
          field('Tokens per minute (TPM)', tpm, hint('tpm', '')),
          field(
            'Models',
            models,
            hint('models', 'Model ids or prefix* patterns, comma-separated; empty = every model the account may use.'),
          ),
          field('Expires', expires, hint('expires_at', 'Empty = never.')),
          field('Budget (USD)', budget.amount, hint('budget', 'Spend budget, within the account’s; empty = none.')),
          field('Budget period', budget.period, 'Calendar periods in Asia/Shanghai.'),
          field('Budget alerts', budget.alerts, 'Optional fractions, comma-separated, e.g. 0.8.'),
        ],
        submitLabel: 'Save limits',
        returnFocus: () => rowHeader(key.id),
        onSubmit: async () => {
          // Only what changed: a setting left as it is keeps its setter and is not checked again.
          const body = {
            rpm: ifChanged(rpm, readLimit),
            tpm: ifChanged(tpm, readLimit),
            models: ifChanged(models, readModels),
            expires_at: ifChanged(expires, readExpires),
            budget: changedBudget(budget, key.budget),
          };
          const updated = await expectStatus(api().admin.updateKey({ params: { keyId: key.id }, body }), 200);
          replace(updated);
          announce(`Limits of “${updated.name}”: ${limitsText(updated)} · ${budgetText(updated.budget)}.`);
        },
      });
    });
    const rotate = h('button', { type: 'button', class: 'button small', 'aria-label': `Rotate the secret of key ${key.name}` }, 'Rotate');
    rotate.addEventListener('click', () => {
      const grace = graceInput();
      formDialog({
        title: `New secret for “${key.name}”`,
        description:
          'The key keeps its id, name, limits and usage. The current secret keeps working for the grace period; 0 stops it at once (a leaked key).',
        fields: [field('Grace period (seconds)', grace)],
        submitLabel: 'Rotate secret',
        returnFocus: () => rowHeader(key.id),
        onSubmit: async () => {
          const created = await expectStatus(
            api().admin.rotateKey({ params: { keyId: key.id }, body: { grace_seconds: readGrace(grace) } }),
            200,
          );
          const { key: secret, ...view } = created;
          replace(view);
          showSecret(created.name, secret);
        },
      });
    });
    // The operator's block is the operator's to lift (docs/operator-controls.md).
    if (key.blocked && key.blocked_by === 'operator' && !isOperator()) {
      return h(
        'div',
        { class: 'actions' },
        rename,
        limits,
        rotate,
        h('span', { class: 'muted' }, 'Blocked by the operator'),
        revokeButton(key),
      );
    }
    const block = h(
      'button',
      { type: 'button', class: 'button small', 'aria-label': `${key.blocked ? 'Unblock' : 'Block'} key ${key.name}` },
      key.blocked ? 'Unblock' : 'Block',
    );
    block.addEventListener('click', () => {
      const params = { params: { keyId: key.id } };
      // `act` shows its own errors above the table.
      void act(
        block,
        () => expectStatus(key.blocked ? api().admin.unblockKey(params) : api().admin.blockKey(params), 200),
        (updated) =>
          updated.blocked ? `Key “${updated.name}” blocked: its requests get 403 until unblocked.` : `Key “${updated.name}” unblocked.`,
      );
    });
    return h('div', { class: 'actions' }, rename, limits, rotate, block, revokeButton(key));
  };

  const revokeButton = (key: ApiKey): HTMLButtonElement => {
    const revoke = h('button', { type: 'button', class: 'button small danger', 'aria-label': `Revoke key ${key.name}` }, 'Revoke');
    revoke.addEventListener('click', () => {
      // The dialog only resolves (true or false); `act` shows its own errors.
      void confirmDialog({
        title: `Revoke “${key.name}”?`,
        message: `Requests with ${key.hint} will be refused (401) from now on. Revoking is final: the key cannot be restored.`,
        confirmLabel: 'Revoke key',
        danger: true,
      }).then((confirmed) => {
        if (confirmed)
          void act(
            revoke,
            () => expectStatus(api().admin.revokeKey({ params: { keyId: key.id } }), 200),
            (updated) => `Key “${updated.name}” revoked.`,
          );
      });
    });
    return revoke;
  };

  const draw = () => {
    if (keys.length === 0) {
      replaceChildren(
        tableSlot,
        emptyState(
          'No API keys yet',
          'Create one above; it calls /v1/chat/completions and /v1/embeddings as “Authorization: Bearer sk-…”.',
        ),
      );
      return;
    }
    const rows = keys.map((key) => {
      const operatorSet = operatorSetNote(key);
      return h(
        'tr',
        { 'data-key-id': key.id, class: key.status === 'REVOKED' ? 'row-revoked' : null },
        h('th', { scope: 'row', 'data-label': 'Name', tabindex: '-1' }, key.name),
        h('td', { 'data-label': 'Key' }, h('code', {}, key.hint)),
        h('td', { 'data-label': 'Status' }, statusBadge(key)),
        h(
          'td',
          { 'data-label': 'Limits' },
          limitsText(key),
          h('br'),
          h('small', { class: 'muted' }, modelsText(key.models)),
          h('br'),
          budgetSummary(key.budget, { keyId: key.id }),
          operatorSet && [h('br'), operatorSet],
        ),
        h('td', { 'data-label': 'Use' }, keyTimesText(key)),
        h(
          'td',
          { 'data-label': 'Created' },
          h('time', { datetime: key.created_at, title: key.created_at }, formatDateTime(key.created_at)),
        ),
        h('td', { 'data-label': 'Actions' }, rowActions(key)),
      );
    });
    replaceChildren(
      tableSlot,
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'table responsive' },
          h('caption', { class: 'visually-hidden' }, `API keys of ${account.name}`),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Name', 'Key', 'Status', 'Limits', 'Use', 'Created'].map((title) => h('th', { scope: 'col' }, title)),
              h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
            ),
          ),
          h('tbody', {}, rows),
        ),
      ),
    );
  };

  const secretSlot = h('div', { class: 'secret-slot' });
  const showSecret = (keyName: string, secret: string) => {
    const panel = secretPanel({
      title: `Your new key “${keyName}”`,
      note: 'Copy it now and keep it somewhere safe: it is shown only this once. Afterwards the dashboard shows only its hint.',
      secret,
      label: `API key ${keyName}`,
      onDone: () => name.focus(),
    });
    replaceChildren(secretSlot, panel);
    panel.focus();
  };
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: '100', autocomplete: 'off' });
  const rpm = limitInput('rpm');
  const tpm = limitInput('tpm');
  const models = modelsInput();
  const expires = expiresInput();
  const budget = budgetInputs();
  const submit = h('button', { type: 'submit', class: 'button primary' }, 'Create key');
  const form = h(
    'form',
    { class: 'card inline-form', novalidate: true, 'aria-labelledby': 'create-key' },
    h('h2', { id: 'create-key' }, 'New API key'),
    accountBudgetNote(accountId, isOperator()),
    h(
      'div',
      { class: 'form-row' },
      field('Name', name, 'Where it is used, e.g. “laptop” or “production”.'),
      field('RPM', rpm, 'Optional'),
      field('TPM', tpm, 'Optional'),
    ),
    h(
      'div',
      { class: 'form-row' },
      field('Models', models, 'Optional: ids or prefix* patterns, comma-separated'),
      field('Expires', expires, 'Optional'),
    ),
    h(
      'div',
      { class: 'form-row' },
      field('Budget (USD)', budget.amount, 'Optional spend budget'),
      field('Budget period', budget.period, 'Asia/Shanghai calendar'),
      submit,
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearFormError(form);
    submit.disabled = true;
    Promise.resolve()
      .then(() => {
        const body = {
          name: name.value,
          rpm: readLimit(rpm) ?? undefined,
          tpm: readLimit(tpm) ?? undefined,
          models: readModels(models) ?? undefined,
          expires_at: readExpires(expires) ?? undefined,
          budget: readBudget(budget) ?? undefined,
        };
        return expectStatus(api().admin.createKey({ params: { accountId }, body }), 201);
      })
      .then(
        (created) => {
          submit.disabled = false;
          form.reset();
          const { key: secret, ...view } = created;
          keys = [...keys, view];
          draw();
          showSecret(created.name, secret);
        },
        (error: unknown) => {
          submit.disabled = false;
          showFormError(form, error);
        },
      );
  });

  draw();
  loaded(main, accountHeader(account, 'API keys', 'keys'), form, secretSlot, messages, tableSlot, auditSection(accountId));
}
