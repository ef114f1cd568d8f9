import type { Budget, BudgetStatus } from '../../../contract';
import { ApiError, api, expectStatus } from '../api';
import { h } from '../dom';

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
    name: 'budget_usd',
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

/** e.g. "Budget $25 per month (alerts at 80%)", or "No budget". */
export function budgetText(budget: Budget | null): string {
  if (budget === null) return 'No budget';
  const period = budget.period === 'total' ? 'in total' : `per ${budget.period}`;
  const alerts =
    budget.alert_at.length === 0 ? '' : ` (alerts at ${budget.alert_at.map((fraction) => `${Math.round(fraction * 100)}%`).join(', ')})`;
  return `Budget $${budget.amount_usd} ${period}${alerts}`;
}

/**
 * The budget's text, then the current period's spend once loaded (from the usage report, a few
 * seconds behind): "Budget $25 per month · $3.2 spent, $21.8 left".
 */
export function budgetSummary(budget: Budget | null, owner: { keyId: string } | { accountId: string }): HTMLElement {
  const element = h('small', { class: 'muted' }, budgetText(budget));
  if (budget === null) return element;
  const load: Promise<BudgetStatus> =
    'keyId' in owner
      ? expectStatus(api().admin.getKeyBudget({ params: { keyId: owner.keyId } }), 200)
      : expectStatus(api().admin.getAccountBudget({ params: { accountId: owner.accountId } }), 200);
  load.then(
    (status) => {
      if (status.spent_usd === null || status.remaining_usd === null) return;
      element.append(` · $${status.spent_usd} spent, $${status.remaining_usd} left`);
    },
    () => undefined,
  );
  return element;
}
