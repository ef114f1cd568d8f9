import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors.js';

const c = initContract();

export const EmbeddingsRequestSchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(z.string()).min(1).max(2048)]),
    encoding_format: z.enum(['float', 'base64']).optional(),
    dimensions: z.number().int().min(1).optional(),
    user: z.string().optional(),
  })
  .passthrough();
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequestSchema>;

export const EmbeddingsResponseSchema = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      object: z.literal('embedding'),
      index: z.number().int(),
      // base64 (little-endian float32) when `encoding_format` is `base64`.
      embedding: z.union([z.array(z.number()), z.string()]),
    }),
  ),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});
export type EmbeddingsResponse = z.infer<typeof EmbeddingsResponseSchema>;

export const embeddingsContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/embeddings',
    summary: 'Create embeddings',
    description: 'Embeds one text or a batch of texts; the order of `data` follows the order of `input`.',
    body: EmbeddingsRequestSchema,
    responses: { 200: EmbeddingsResponseSchema, ...errorResponses },
    metadata: { auth: 'api-key' } as const,
  },
});
