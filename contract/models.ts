import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors.js';

const c = initContract();

export const CapabilitySchema = z.enum(['chat', 'code', 'vision', 'function_calling', 'json_mode', 'embeddings']);
export type Capability = z.infer<typeof CapabilitySchema>;

export const ModelEntrySchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  owned_by: z.string(),
  capabilities: z.array(CapabilitySchema),
  context_window: z.number().int(),
  pricing: z.object({ input_per_million: z.number(), output_per_million: z.number() }),
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
