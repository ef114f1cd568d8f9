import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from './errors.js';

const c = initContract();

export const EmbeddingsRequestSchema = z
  .object({
    model: z.string().min(1).describe('An embeddings model id from GET /v1/models.'),
    input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(2048)]).describe('One text, or up to 2048 texts.'),
    encoding_format: z
      .enum(['float', 'base64'])
      .optional()
      .describe('`float` (default): arrays of numbers; `base64`: little-endian float32 bytes.'),
    dimensions: z.number().int().min(1).optional().describe("Length of each vector: one of the model's `dimensions`."),
    user: z.string().optional().describe('An id of your end user, passed to the provider.'),
  })
  .passthrough()
  .describe("An embeddings request, as OpenAI's API takes it.");
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequestSchema>;

export const EmbeddingsResponseSchema = z
  .object({
    object: z.literal('list'),
    data: z
      .array(
        z.object({
          object: z.literal('embedding'),
          index: z.number().int().describe('The position of its text in `input`.'),
          embedding: z
            .union([z.array(z.number()), z.string()])
            .describe('The vector; a base64 text of little-endian float32 values with `encoding_format: base64`.'),
        }),
      )
      .describe('One embedding per input text, in order.'),
    model: z.string().describe('The model that answered.'),
    usage: z
      .object({
        prompt_tokens: z.number().int().describe('Tokens of the input.'),
        total_tokens: z.number().int().describe('The same: embeddings produce no output tokens.'),
      })
      .describe('The tokens billed for the call.'),
  })
  .describe('The embeddings of the input texts.');
export type EmbeddingsResponse = z.infer<typeof EmbeddingsResponseSchema>;

export const embeddingsContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/embeddings',
    summary: 'Create embeddings',
    description: 'Embeds one text or a batch of texts; the order of `data` follows the order of `input`.',
    body: EmbeddingsRequestSchema,
    responses: { 200: EmbeddingsResponseSchema, ...errorResponses },
    metadata: {
      auth: 'api-key',
      examples: {
        request: { model: 'mock-embed', input: ['first text', 'second text'], dimensions: 256 },
        response: {
          object: 'list',
          data: [
            { object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789] },
            { object: 'embedding', index: 1, embedding: [-0.0321, 0.0654, -0.0987] },
          ],
          model: 'mock-embed',
          usage: { prompt_tokens: 4, total_tokens: 4 },
        },
      },
    } as const,
  },
});
