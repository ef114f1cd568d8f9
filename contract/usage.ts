import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors.js';

const c = initContract();

/** Dates are checked for being real calendar days in the route (docs/usage-report.md: 400 invalid_date). */
export const UsageQuerySchema = z.object({
  start: z.string().optional().describe('Inclusive Asia/Shanghai day, YYYY-MM-DD. Default: 29 days before `end`.'),
  end: z.string().optional().describe('Inclusive Asia/Shanghai day, YYYY-MM-DD. Default: today in Asia/Shanghai.'),
});
export type UsageQuery = z.infer<typeof UsageQuerySchema>;

const SpendCountsShape = {
  spend_usd: z.number().describe('Cost in USD at the configured prices.'),
  requests: z.number().int().describe('Successful calls.'),
  prompt_tokens: z.number().int().describe('Prompt tokens of those calls.'),
  completion_tokens: z.number().int().describe('Completion tokens of those calls.'),
};

export const UsageDailyRowSchema = z
  .object({ date: z.string().describe('The Asia/Shanghai day, YYYY-MM-DD.'), ...SpendCountsShape })
  .describe('One day of one key.');
export type UsageDailyRow = z.infer<typeof UsageDailyRowSchema>;

export const UsageKeyEntrySchema = z
  .object({
    name: z.string().describe("The key's name."),
    hint: z.string().describe("The key's first and last characters, to recognise it."),
    status: z.enum(['ACTIVE', 'REVOKED']).describe('A revoked key is refused for good.'),
    blocked: z.boolean().describe('A blocked key is refused (403) until unblocked.'),
    created_at: z.string().describe('ISO 8601 time.'),
    total: z.object(SpendCountsShape).describe('The sums over the range.'),
    daily: z.array(UsageDailyRowSchema).describe('Every day of the range, oldest first, zeros included.'),
  })
  .describe('One API key of the account and its usage.');
export type UsageKeyEntry = z.infer<typeof UsageKeyEntrySchema>;

export const UsageReportSchema = z
  .object({
    object: z.literal('usage.keys'),
    start: z.string().describe('First day of the range, YYYY-MM-DD.'),
    end: z.string().describe('Last day of the range, YYYY-MM-DD.'),
    timezone: z.literal('Asia/Shanghai').describe('The days are Asia/Shanghai calendar days.'),
    keys: z.array(UsageKeyEntrySchema).describe('Every API key of the account, revoked ones included.'),
  })
  .describe('The per-key usage of an account (docs/usage-report.md).');
export type UsageReport = z.infer<typeof UsageReportSchema>;

/** The parts of the token counts (docs/pricing.md), in the admin report only. */
const BreakdownShape = {
  cached_tokens: z.number().int().describe('Of prompt_tokens, read from the prompt cache.'),
  cache_write_tokens: z.number().int().describe('Of prompt_tokens, written to the prompt cache (5-minute lifetime).'),
  cache_write_1h_tokens: z.number().int().describe('Of prompt_tokens, written to the prompt cache (1-hour lifetime).'),
  reasoning_tokens: z.number().int().describe('Of completion_tokens, reasoning tokens.'),
};

export const UsageDeploymentEntrySchema = z
  .object({
    deployment: z
      .string()
      .nullable()
      .describe(
        'The deployment that answered (docs/routing.md); null for calls no deployment answered, or recorded before deployments were.',
      ),
    ...SpendCountsShape,
    ...BreakdownShape,
  })
  .describe("One deployment's share of a model's usage by one key: the model is what is billed, at the catalogue's prices.");
export type UsageDeploymentEntry = z.infer<typeof UsageDeploymentEntrySchema>;

export const UsageModelEntrySchema = z
  .object({
    model: z.string().describe('The model id.'),
    ...SpendCountsShape,
    ...BreakdownShape,
    deployments: z.array(UsageDeploymentEntrySchema).describe("The model's usage split by the deployment that answered, by deployment id."),
  })
  .describe("One model's usage by one key over the range.");
export type UsageModelEntry = z.infer<typeof UsageModelEntrySchema>;

export const DetailedUsageKeyEntrySchema = UsageKeyEntrySchema.extend({
  total: z.object({ ...SpendCountsShape, ...BreakdownShape }).describe('The sums over the range, with the token breakdown.'),
  daily: z
    .array(UsageDailyRowSchema.extend(BreakdownShape))
    .describe('Every day of the range, oldest first, zeros included, with the token breakdown.'),
  models: z
    .array(UsageModelEntrySchema)
    .describe(
      "The key's usage per model over the range, summed from the usage events (kept usage.retention_days); spend rounded once per model.",
    ),
});
export type DetailedUsageKeyEntry = z.infer<typeof DetailedUsageKeyEntrySchema>;

/** The admin and dashboard report: GET /v1/usage/keys's, plus the token breakdown and a per-model split per key. */
export const DetailedUsageReportSchema = UsageReportSchema.extend({
  keys: z.array(DetailedUsageKeyEntrySchema).describe('Every API key of the account, revoked ones included.'),
});

export type DetailedUsageReport = z.infer<typeof DetailedUsageReportSchema>;

export const usageContract = c.router({
  keys: {
    method: 'GET',
    path: '/v1/usage/keys',
    summary: 'Per-key usage report of the account',
    description:
      "Bucketed by Asia/Shanghai calendar day. Authenticated with the account's usage query key (`uk-…`). " +
      'At most 92 days; 30 requests per minute per key and 120 per minute per client IP.',
    query: UsageQuerySchema,
    responses: { 200: UsageReportSchema, ...errorResponses },
    metadata: {
      auth: 'usage-key',
      examples: {
        response: {
          object: 'usage.keys',
          start: '2026-01-01',
          end: '2026-01-02',
          timezone: 'Asia/Shanghai',
          keys: [
            {
              name: 'production',
              hint: 'sk-Ab…9xYz',
              status: 'ACTIVE',
              blocked: false,
              created_at: '2025-12-30T08:00:00.000Z',
              total: { spend_usd: 0.0042, requests: 3, prompt_tokens: 1200, completion_tokens: 900 },
              daily: [
                { date: '2026-01-01', spend_usd: 0.0042, requests: 3, prompt_tokens: 1200, completion_tokens: 900 },
                { date: '2026-01-02', spend_usd: 0, requests: 0, prompt_tokens: 0, completion_tokens: 0 },
              ],
            },
          ],
        },
      },
    } as const,
  },
});
