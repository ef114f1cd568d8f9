import { z } from 'zod';
import { parseProviderOptions } from '../provider-options';

/** `providers.<name>.options` of a `mock` provider; strict so a misspelt option fails at start. */
export const MockOptionsSchema = z
  .object({
    /** Wait before the reply, or before the first chunk of a stream (simulated time to first token). */
    latency_ms: z.number().int().nonnegative().default(0),
    /** Wait between two streamed chunks. */
    chunk_delay_ms: z.number().int().nonnegative().default(0),
    /** Content chunks per streamed reply; default one per word, at most 20. */
    chunks: z.number().int().positive().optional(),
  })
  .strict();
export type MockOptions = z.infer<typeof MockOptionsSchema>;

export function parseMockOptions(provider: string, options: Record<string, unknown> | undefined): MockOptions {
  return parseProviderOptions(MockOptionsSchema, 'mock', provider, options);
}
