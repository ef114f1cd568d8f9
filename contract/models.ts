import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors';

const c = initContract();

export const CapabilitySchema = z.enum(['chat', 'code', 'vision', 'function_calling', 'json_mode', 'embeddings']);
export type Capability = z.infer<typeof CapabilitySchema>;

/** USD per million tokens (docs/pricing.md); a cache price not listed is the input price. */
const RatesShape = {
  input_per_million: z.number(),
  output_per_million: z.number(),
  cache_read_per_million: z.number().optional().describe('Prompt tokens read from the prompt cache; absent = input_per_million.'),
  cache_write_per_million: z.number().optional().describe('Prompt tokens written to the prompt cache, 5-minute lifetime; absent = input_per_million.'),
  cache_write_1h_per_million: z.number().optional().describe('Prompt tokens written to the prompt cache, 1-hour lifetime; absent = input_per_million.'),
};

export const PricingEntrySchema = z.object({
  ...RatesShape,
  long_context: z
    .object({ threshold_tokens: z.number().int(), ...RatesShape })
    .optional()
    .describe("Rates of every token of a request whose whole prompt (cached included) is over threshold_tokens."),
});
export type PricingEntry = z.infer<typeof PricingEntrySchema>;

export const ModelEntrySchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  owned_by: z.string(),
  capabilities: z.array(CapabilitySchema),
  context_window: z.number().int(),
  pricing: PricingEntrySchema,
  dimensions: z.array(z.number().int()).optional(),
});
export type ModelEntry = z.infer<typeof ModelEntrySchema>;

export const ModelListSchema = z.object({ object: z.literal('list'), data: z.array(ModelEntrySchema) });
export type ModelList = z.infer<typeof ModelListSchema>;

export const modelsContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/models',
    summary: 'List the model catalogue',
    description: 'No authentication. Capabilities, context window and pricing of every configured model.',
    responses: { 200: ModelListSchema, ...errorResponses },
    metadata: { auth: 'none' } as const,
  },
});
