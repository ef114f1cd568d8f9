import { BudgetSchema, type Budget } from '../../contract';

/** The spend budget flags of `keys create`, `keys limits` and `accounts limits` (docs/cli.md). */
export const BUDGET_FLAGS = ['budget-usd', 'budget-period', 'budget-alert', 'no-budget'] as const;

export const BUDGET_PARSE_OPTIONS = {
  'budget-usd': { type: 'string' },
  'budget-period': { type: 'string' },
  'budget-alert': { type: 'string' },
  'no-budget': { type: 'boolean' },
} as const;

export interface BudgetValues {
  'budget-usd'?: string;
  'budget-period'?: string;
  'budget-alert'?: string;
  'no-budget'?: boolean;
}

/**
 * `--budget-usd N --budget-period day|week|month|total [--budget-alert 0.5,0.8]` as the admin
 * API's budget (checked by its schema), `--no-budget` = remove it, none of them = unchanged.
 * Throws a one-line message for the CLI to print.
 */
export function budgetOption(values: BudgetValues): Budget | null | undefined {
  const given = values['budget-usd'] !== undefined || values['budget-period'] !== undefined || values['budget-alert'] !== undefined;
  if (values['no-budget']) {
    if (given) throw new Error('--no-budget cannot be combined with --budget-usd, --budget-period or --budget-alert');
    return null;
  }
  if (!given) return undefined;
  const amount = values['budget-usd'];
  const period = values['budget-period'];
  if (amount === undefined || period === undefined) throw new Error('a budget needs both --budget-usd and --budget-period');
  const alerts = values['budget-alert'];
  const parsed = BudgetSchema.safeParse({
    amount_usd: /^\d+(\.\d+)?$/.test(amount) ? Number(amount) : Number.NaN,
    period,
    alert_at: alerts === undefined ? [] : alerts.split(',').map((text) => (/^0?\.\d+$/.test(text.trim()) ? Number(text) : Number.NaN)),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const flag = issue?.path[0] === 'period' ? '--budget-period' : issue?.path[0] === 'alert_at' ? '--budget-alert' : '--budget-usd';
    const hint =
      flag === '--budget-period'
        ? 'day, week, month or total'
        : flag === '--budget-alert'
          ? 'comma-separated fractions between 0 and 1, e.g. 0.5,0.8'
          : 'an amount in USD, more than 0, at most 1000000, at most 6 decimals';
    throw new Error(`Invalid value for ${flag}: ${hint}`);
  }
  return parsed.data;
}

/** Whether any budget flag was given. */
export const hasBudgetFlag = (values: BudgetValues): boolean => BUDGET_FLAGS.some((flag) => values[flag] !== undefined);
