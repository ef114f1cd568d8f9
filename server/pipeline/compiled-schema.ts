import { Ajv } from 'ajv';
import type { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';

export type BodyValidator<Output> = (value: unknown) => z.SafeParseReturnType<unknown, Output>;

/**
 * `schema.safeParse` with a compiled fast path for the bodies it accepts as they are: the
 * same schema compiled by Ajv checks a typical chat body about twenty times faster than zod 3
 * (docs/performance.md, "Speed tricks in the code"). The JSON Schema is derived
 * from the zod schema once, at start: no second copy of any schema is written by hand.
 *
 * The compiled check only ever ACCEPTS, and only bodies zod would return unchanged: objects
 * zod strips unknown keys from get `additionalProperties: false` (such a body goes to zod,
 * which returns it stripped), and no object may hold a `__proto__` key (JSON.parse keeps it
 * as a plain key, zod leaves it out). Everything it does not accept goes to zod, which
 * decides and reports the failure. Key order may differ from zod's output; JSON does not
 * give it meaning.
 */
export function compileBodySchema<Schema extends z.ZodTypeAny>(schema: Schema): BodyValidator<z.output<Schema>> {
  const accepts = compileFastAccept(schema);
  return (value) => (accepts(value) ? { success: true, data: value as z.output<Schema> } : schema.safeParse(value));
}

/** The compiled check alone: true only for values zod accepts and returns as they are. */
export function compileFastAccept(schema: z.ZodTypeAny): (value: unknown) => boolean {
  const jsonSchema = withoutProtoKeys(zodToJsonSchema(schema, { $refStrategy: 'none', target: 'jsonSchema7' }));
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
  const accepts = ajv.compile(jsonSchema);
  return (value) => accepts(value);
}

const NO_PROTO_KEY = { not: { const: '__proto__' } };

/** Every object schema, nested ones included, refuses a `__proto__` key; string maxima in code points. */
function withoutProtoKeys(node: unknown): Record<string, unknown> {
  return visit(node) as Record<string, unknown>;
  function visit(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== 'object' || value === null) return value;
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      // Property names are data, not schemas (`properties`), and `const`/`enum` are values.
      copy[key] = key === 'const' || key === 'enum' || key === 'default' ? child : key === 'properties' ? mapValues(child) : visit(child);
    }
    // Ajv counts a string's length in code points, zod in UTF-16 units (up to two per code
    // point): at most half the maximum in code points is within it in units. (A minimum holds
    // as it is: units are never fewer than code points.)
    if (typeof copy.maxLength === 'number') copy.maxLength = Math.floor(copy.maxLength / 2);
    const type = copy.type;
    if (type === 'object' || (Array.isArray(type) && type.includes('object'))) copy.propertyNames = NO_PROTO_KEY;
    return copy;
  }
  function mapValues(properties: unknown): unknown {
    if (typeof properties !== 'object' || properties === null) return properties;
    const copy: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(properties)) copy[name] = visit(child);
    return copy;
  }
}
