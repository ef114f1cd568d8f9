import type { Budget, BudgetStatus } from '../../../contract';
import { ApiError, api, expectStatus } from '../api';
import { h } from '../dom';
import { formatUsd } from '../format';

/*
 * The spend budget inputs of docs/operator-controls.md, shared by the keys and accounts pages:
 * an amount in USD (empty = no budget), a period, and optional alert fractions.
 */
export interface BudgetInputs {
  amount: HTMLInputElement;
  period: HTMLSelectElement;
  alerts: HTMLInputElement;
}

const PERIODS: ReadonlyArray<[Budget['period'], string]> = [
  ['day', 'per day'],
  ['week', 'per week (from Monday)'],
  ['month', 'per month'],
  ['total', 'in total'],
];

export function budgetInputs(budget: Budget | null = null): BudgetInputs {
  const amount = h('input', {
    type: 'number',
    // The API's param for a refused budget (showFormError marks and focuses it).
    name: 'budget',
    min: '0.000001',
    step: '0.000001',
    inputmode: 'decimal',
    value: budget?.amount_usd ?? '',
    placeholder: 'no budget',
  });
  const period = h(
    'select',
    { name: 'budget_period' },
    ...PERIODS.map(([value, label]) => h('option', { value, selected: (budget?.period ?? 'month') === value }, label)),
  );
  const alerts = h('input', {
    type: 'text',
    name: 'budget_alert_at',
    value: budget?.alert_at.join(', ') ?? '',
    placeholder: 'e.g. 0.8',
    autocomplete: 'off',
  });
  return { amount, period, alerts };
}

/** Empty amount = no budget (null). Periods are Asia/Shanghai calendar periods. */
export function readBudget(inputs: BudgetInputs): Budget | null {
  const text = inputs.amount.value.trim();
  if (text === '') return null;
  const amount = Number(text);
  if (!Number.isFinite(amount) || amount <= 0)
    throw new ApiError(400, 'The budget is an amount in USD above 0, or empty for none.', 'invalid_value', 'budget');
  const alerts = inputs.alerts.value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(Number);
  if (alerts.some((fraction) => !(fraction > 0 && fraction < 1)))
    throw new ApiError(400, 'Budget alerts are fractions between 0 and 1, e.g. 0.5, 0.8.', 'invalid_value', 'budget');
  return { amount_usd: amount, period: inputs.period.value as Budget['period'], alert_at: alerts };
}

/** The amount as set, to the cent at least: "$25.00", "$0.0005". */
function amountText(amount: number): string {
  return `$${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
}

/** e.g. "Budget $25.00 per month (alerts at 80%)", or "No budget". */
export function budgetText(budget: Budget | null, label = 'Budget'): string {
  if (budget === null) return `No ${label.toLowerCase()}`;
  const period = budget.period === 'total' ? 'in total' : `per ${budget.period}`;
  const alerts =
    budget.alert_at.length === 0 ? '' : ` (alerts at ${budget.alert_at.map((fraction) => `${Math.round(fraction * 100)}%`).join(', ')})`;
  return `${label} ${amountText(budget.amount_usd)} ${period}${alerts}`;
}

/** " · $3.20 spent, $21.80 left" (nothing without a budget). */
function spendText(status: BudgetStatus): string {
  if (status.spent_usd === null || status.remaining_usd === null) return '';
  return ` · ${formatUsd(status.spent_usd)} spent, ${formatUsd(status.remaining_usd)} left`;
}

/** The API keeps alert fractions sorted, without repeats. */
const alertsKey = (budget: Budget): string => [...new Set(budget.alert_at)].sort((left, right) => left - right).join();

const sameBudget = (left: Budget | null, right: Budget | null): boolean =>
  left === right ||
  (left !== null &&
    right !== null &&
    left.amount_usd === right.amount_usd &&
    left.period === right.period &&
    alertsKey(left) === alertsKey(right));

/**
 * The budget to send with a dialog's other changes: undefined when the inputs still show the
 * current one. A key may keep a budget above its account's after the operator lowered the
 * account's (docs/operator-controls.md), so resending it unchanged would refuse the whole edit.
 */
export function changedBudget(inputs: BudgetInputs, current: Budget | null): Budget | null | undefined {
  const budget = readBudget(inputs);
  return sameBudget(budget, current) ? undefined : budget;
}

/**
 * The budget's text, then the current period's spend once loaded (from the usage report, a few
 * seconds behind): "Budget $25.00 per month · $3.20 spent, $21.80 left".
 */
export function budgetSummary(budget: Budget | null, owner: { keyId: string } | { accountId: string }): HTMLElement {
  const element = h('small', { class: 'muted' }, budgetText(budget));
  if (budget === null) return element;
  const load: Promise<BudgetStatus> =
    'keyId' in owner
      ? expectStatus(api().admin.getKeyBudget({ params: { keyId: owner.keyId } }), 200)
      : expectStatus(api().admin.getAccountBudget({ params: { accountId: owner.accountId } }), 200);
  load.then(
    (status) => element.append(spendText(status)),
    () => undefined,
  );
  return element;
}

/**
 * The account's budget above its keys, read fresh from the API (the operator may have changed
 * it since sign-in); empty when the account has none. Only the operator changes it (on the
 * accounts page): an owner reads it here.
 */
export function accountBudgetNote(accountId: string, operator: boolean): HTMLElement {
  const element = h('p', { class: 'muted', hidden: true });
  expectStatus(api().admin.getAccountBudget({ params: { accountId } }), 200).then(
    (status) => {
      if (status.budget === null) return;
      const rule = operator
        ? ' Each key’s budget stays within it; change it with Ceilings on the accounts page.'
        : ' Set by the operator; each key’s budget stays within it.';
      element.append(`${budgetText(status.budget, 'Account budget')}${spendText(status)}.${rule}`);
      element.hidden = false;
    },
    () => undefined,
  );
  return element;
}
