import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors';

const c = initContract();

/** Dates are checked for being real calendar days in the route (decisions.md §3: 400 invalid_date). */
export const UsageQuerySchema = z.object({
  start: z.string().optional().describe('Inclusive Asia/Shanghai day, YYYY-MM-DD. Default: 29 days before `end`.'),
  end: z.string().optional().describe('Inclusive Asia/Shanghai day, YYYY-MM-DD. Default: today in Asia/Shanghai.'),
});
export type UsageQuery = z.infer<typeof UsageQuerySchema>;

const SpendCountsShape = {
  spend_usd: z.number(),
  requests: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
};

export const UsageDailyRowSchema = z.object({ date: z.string(), ...SpendCountsShape });
export type UsageDailyRow = z.infer<typeof UsageDailyRowSchema>;

export const UsageKeyEntrySchema = z.object({
  name: z.string(),
  hint: z.string(),
  status: z.enum(['ACTIVE', 'REVOKED']),
  blocked: z.boolean(),
  created_at: z.string(),
  total: z.object(SpendCountsShape),
  daily: z.array(UsageDailyRowSchema),
});
export type UsageKeyEntry = z.infer<typeof UsageKeyEntrySchema>;

export const UsageReportSchema = z.object({
  object: z.literal('usage.keys'),
  start: z.string(),
  end: z.string(),
  timezone: z.literal('Asia/Shanghai'),
  keys: z.array(UsageKeyEntrySchema),
});
export type UsageReport = z.infer<typeof UsageReportSchema>;

/** The parts of the token counts (docs/pricing.md), in the admin report only. */
const BreakdownShape = {
  cached_tokens: z.number().int().describe('Of prompt_tokens, read from the prompt cache.'),
  cache_write_tokens: z.number().int().describe('Of prompt_tokens, written to the prompt cache (5-minute lifetime).'),
  cache_write_1h_tokens: z.number().int().describe('Of prompt_tokens, written to the prompt cache (1-hour lifetime).'),
  reasoning_tokens: z.number().int().describe('Of completion_tokens, reasoning tokens.'),
};

export const UsageModelEntrySchema = z.object({ model: z.string(), ...SpendCountsShape, ...BreakdownShape });
export type UsageModelEntry = z.infer<typeof UsageModelEntrySchema>;

export const DetailedUsageKeyEntrySchema = UsageKeyEntrySchema.extend({
  total: z.object({ ...SpendCountsShape, ...BreakdownShape }),
  daily: z.array(UsageDailyRowSchema.extend(BreakdownShape)),
  models: z
    .array(UsageModelEntrySchema)
    .describe("The key's usage per model over the range, summed from the usage events (kept usage.retention_days); spend rounded once per model."),
});
export type DetailedUsageKeyEntry = z.infer<typeof DetailedUsageKeyEntrySchema>;

/** The admin and dashboard report: GET /v1/usage/keys's, plus the token breakdown and a per-model split per key. */
export const DetailedUsageReportSchema = UsageReportSchema.extend({ keys: z.array(DetailedUsageKeyEntrySchema) });
export type DetailedUsageReport = z.infer<typeof DetailedUsageReportSchema>;

export const usageContract = c.router({
  keys: {
    method: 'GET',
    path: '/v1/usage/keys',
    summary: 'Per-key usage report of the account',
    description:
      'Bucketed by Asia/Shanghai calendar day. Authenticated with the account\'s usage query key (`uk-…`). ' +
      'At most 92 days; 30 requests per minute per key and 120 per minute per client IP.',
    query: UsageQuerySchema,
    responses: { 200: UsageReportSchema, ...errorResponses },
    metadata: { auth: 'usage-key' } as const,
  },
});
