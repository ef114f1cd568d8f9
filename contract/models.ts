import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors.js';

const c = initContract();

export const CapabilitySchema = z
  .enum(['chat', 'code', 'vision', 'function_calling', 'json_mode', 'reasoning', 'embeddings'])
  .describe('What a model can do; a request needing a capability the model lacks is a 400.');
export type Capability = z.infer<typeof CapabilitySchema>;

/** USD per million tokens (docs/pricing.md); a cache price not listed is the input price. */
const RatesShape = {
  input_per_million: z.number().describe('Prompt tokens neither read from nor written to the prompt cache.'),
  output_per_million: z.number().describe('Completion tokens, reasoning included.'),
  cache_read_per_million: z.number().optional().describe('Prompt tokens read from the prompt cache; absent = input_per_million.'),
  cache_write_per_million: z
    .number()
    .optional()
    .describe('Prompt tokens written to the prompt cache, 5-minute lifetime; absent = input_per_million.'),
  cache_write_1h_per_million: z
    .number()
    .optional()
    .describe('Prompt tokens written to the prompt cache, 1-hour lifetime; absent = input_per_million.'),
};

export const PricingEntrySchema = z.object({
  ...RatesShape,
  long_context: z
    .object({ threshold_tokens: z.number().int().describe('The prompt size above which these rates apply.'), ...RatesShape })

    .optional()
    .describe('Rates of every token of a request whose whole prompt (cached included) is over threshold_tokens.'),
});
export type PricingEntry = z.infer<typeof PricingEntrySchema>;

export const ModelEntrySchema = z
  .object({
    id: z.string().describe('The id to send as `model`.'),
    object: z.literal('model'),
    owned_by: z.string().describe('Who makes the model.'),
    capabilities: z.array(CapabilitySchema).describe('What the model can do.'),
    context_window: z.number().int().describe('Most tokens of request and reply together.'),
    pricing: PricingEntrySchema,
    dimensions: z.array(z.number().int()).optional().describe('Embeddings models: the vector lengths `dimensions` may ask for.'),
  })
  .describe('A model of the catalogue.');
export type ModelEntry = z.infer<typeof ModelEntrySchema>;

export const ModelListSchema = z
  .object({ object: z.literal('list'), data: z.array(ModelEntrySchema).describe('Every configured model.') })
  .describe('The model catalogue.');
export type ModelList = z.infer<typeof ModelListSchema>;

export const modelsContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/models',
    summary: 'List the model catalogue',
    description: 'No authentication. Capabilities, context window and pricing of every configured model.',
    responses: { 200: ModelListSchema, ...errorResponses },
    metadata: {
      auth: 'none',
      examples: {
        response: {
          object: 'list',
          data: [
            {
              id: 'mock-chat',
              object: 'model',
              owned_by: 'mock',
              capabilities: ['chat', 'function_calling', 'json_mode'],
              context_window: 32000,
              pricing: { input_per_million: 1.5, output_per_million: 2.25 },
            },
          ],
        },
      },
    } as const,
  },
});
