import { z } from 'zod';

/** Whole micro-dollars: a budget has at most 6 decimals. */
const isWholeMicroUsd = (usd: number): boolean => Math.abs(Math.round(usd * 1e6) - usd * 1e6) < 1e-6;

/** docs/operator-controls.md, spend budgets: an amount in USD per calendar period (Asia/Shanghai). */
export const BudgetSchema = z
  .object({
    amount_usd: z
      .number()
      .min(0.000001)
      .max(1_000_000)
      .refine(isWholeMicroUsd, 'at most 6 decimals')
      .describe('USD per period, 0.000001 to 1,000,000, at most 6 decimals.'),
    period: z
      .enum(['day', 'week', 'month', 'total'])
      .describe('Calendar day, week from Monday, calendar month (Asia/Shanghai, like the usage report), or all time.'),
    alert_at: z
      .array(z.number().min(0.000001).max(0.999999))
      .max(10)
      .default([])
      .describe(
        'Fractions of the amount (e.g. 0.8): a warning log line and a metric when settled spend first reaches each, once per period.',
      ),
  })
  .describe('A spend budget.');
export type Budget = z.output<typeof BudgetSchema>;

/** docs/operator-controls.md, spend budgets: a budget's current period, spend from the usage report. */
export const BudgetStatusSchema = z
  .object({
    budget: BudgetSchema.nullable().describe('The budget; null = none (then every other field is null).'),
    spent_usd: z
      .number()
      .nullable()
      .describe("The period's spend as the usage report has it (written with the usage batches, a few seconds behind)."),
    remaining_usd: z.number().nullable().describe('The amount minus the spend, never negative.'),
    period_start: z.string().nullable().describe('ISO 8601 time the current period started (Asia/Shanghai calendar).'),
    resets_at: z.string().nullable().describe('ISO 8601 time the next period starts; null for a total budget.'),
  })
  .describe("A spend budget's current period.");
export type BudgetStatus = z.output<typeof BudgetStatusSchema>;
