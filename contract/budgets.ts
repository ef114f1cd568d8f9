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
