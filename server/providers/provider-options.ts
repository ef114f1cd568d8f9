import type { z } from 'zod';

/**
 * `providers.<name>.options` checked against a provider type's strict schema; a problem fails
 * the start with every issue's path and message (docs/configuration.md).
 */
export function parseProviderOptions<Schema extends z.ZodTypeAny>(
  schema: Schema,
  type: string,
  provider: string,
  options: Record<string, unknown> | undefined,
): z.output<Schema> {
  const parsed = schema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'options'}: ${issue.message}`).join('; ');
  throw new Error(`Invalid options for the ${type} provider "${provider}": ${problems}`);
}
