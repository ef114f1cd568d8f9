import type { z } from 'zod';

/**
 * A JSON message from a Redis channel, checked against its schema. Never throws: a malformed
 * message (another version, another tool) is null, and its sender's change is left to the
 * receiver's backstop (a periodic reload).
 */
export function decodeMessage<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, message: string): T | null {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
