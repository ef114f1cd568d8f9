import type { Budget as BudgetView } from '../../contract';
import type { Budget } from '../db/types';
import { femtoToUsdText } from '../usage/cost';

/** Femto-dollars per micro-dollar: an amount has at most 6 decimals (contract/admin.ts). */
const FEMTO_PER_MICRO = 1_000_000_000n;

/** A budget from the admin API, set at `now` (its spend counters start again from the ledger). */
export function toBudget(view: BudgetView, now: number): Budget {
  return {
    amountFemtoUsd: BigInt(Math.round(view.amount_usd * 1e6)) * FEMTO_PER_MICRO,
    period: view.period,
    alertAt: [...new Set(view.alert_at)].sort((left, right) => left - right),
    setAt: now,
  };
}

export function toBudgetView(budget: Budget | null): BudgetView | null {
  if (budget === null) return null;
  return { amount_usd: Number(femtoToUsdText(budget.amountFemtoUsd)), period: budget.period, alert_at: budget.alertAt };
}
