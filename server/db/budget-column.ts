import type { Budget, BudgetPeriod } from './types';

const PERIODS: readonly BudgetPeriod[] = ['day', 'week', 'month', 'total'];

/**
 * The `budget` column of keys and accounts (docs/operator-controls.md, spend budgets): JSON
 * `{"amount_femto_usd": "<integer>", "period", "alert_at": [fractions], "set_at": <epoch ms>}`,
 * or NULL. Anything else is a corrupt row.
 */
export function fromBudgetColumn(text: string | null): Budget | null {
  if (text === null) return null;
  const corrupt = () => new Error(`a budget column holds something other than a budget: ${JSON.stringify(text.slice(0, 200))}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt();
  }
  if (typeof value !== 'object' || value === null) throw corrupt();
  const { amount_femto_usd: amount, period, alert_at: alertAt, set_at: setAt } = value as Record<string, unknown>;
  if (typeof amount !== 'string' || !/^[1-9]\d*$/.test(amount)) throw corrupt();
  if (typeof period !== 'string' || !(PERIODS as readonly string[]).includes(period)) throw corrupt();
  if (!Array.isArray(alertAt) || !alertAt.every((fraction) => typeof fraction === 'number' && fraction > 0 && fraction < 1))
    throw corrupt();
  if (typeof setAt !== 'number' || !Number.isSafeInteger(setAt)) throw corrupt();
  return { amountFemtoUsd: BigInt(amount), period: period as BudgetPeriod, alertAt: alertAt as number[], setAt };
}

export function toBudgetColumn(budget: Budget | null): string | null {
  if (budget === null) return null;
  return JSON.stringify({
    amount_femto_usd: budget.amountFemtoUsd.toString(),
    period: budget.period,
    alert_at: budget.alertAt,
    set_at: budget.setAt,
  });
}
