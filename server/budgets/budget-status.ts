import type { BudgetStatus } from '../../contract';
import type { Budget, Store } from '../db/types';
import { femtoToUsdText } from '../usage/cost';
import { toBudgetView } from './budget-view';
import { budgetWindow } from './budget-window';

/**
 * docs/operator-controls.md, spend budgets: the current period of a key's or an account's
 * budget, its spend read from the usage report's ledger (the daily rollup), so it trails the
 * requests by the usage flush interval.
 */
export async function budgetStatus(
  store: Pick<Store, 'spendOfDays'>,
  budget: Budget | null,
  scope: { keyId: string } | { accountId: string },
  now: number,
): Promise<BudgetStatus> {
  if (budget === null) return { budget: null, spent_usd: null, remaining_usd: null, period_start: null, resets_at: null };
  const window = budgetWindow(budget.period, now);
  const spent = await store.spendOfDays(scope, window.startDay, window.endDay);
  const remaining = budget.amountFemtoUsd > spent ? budget.amountFemtoUsd - spent : 0n;
  return {
    budget: toBudgetView(budget),
    spent_usd: Number(femtoToUsdText(spent)),
    remaining_usd: Number(femtoToUsdText(remaining)),
    period_start: new Date(window.start).toISOString(),
    resets_at: window.end === null ? null : new Date(window.end).toISOString(),
  };
}
