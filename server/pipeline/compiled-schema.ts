import { Ajv } from 'ajv';
import type { z } from 'zod';
import { zodToJsonSchema } from 'zod-to-json-schema';

export type BodyValidator<Output> = (value: unknown) => z.SafeParseReturnType<unknown, Output>;

/**
 * `schema.safeParse` with a compiled fast path for the values it accepts as they are: the
 * same schema compiled by Ajv checks a typical chat body about twenty times faster than zod 3
 * (docs/performance.md, "Speed tricks in the code"). The JSON Schema is derived from the zod
 * schema once, at start: no second copy of any schema is written by hand. Request bodies and
 * the OpenAI upstream replies (providers/openai/openai-guards.ts) are checked this way.
 *
 * The compiled check only ever ACCEPTS, and only values zod accepts. Everything it does not
 * accept goes to zod, which decides and reports the failure. What it accepts is returned as it
 * is. The derived schema is adjusted here only (the options of `compileFastAccept` and
 * `adjusted`), tested in test/pipeline/compiled-schema.test.ts:
 * - with `unknownKeys: 'refused'` (request bodies, which are passed on), only values zod would
 *   return unchanged are accepted: objects zod strips unknown keys from refuse them (such a
 *   body goes to zod, which returns it stripped), and no object may hold a `__proto__` key
 *   (JSON.parse keeps it as a plain key, zod leaves it out). With `unknownKeys: 'kept'` (for
 *   callers that read only the schema's fields) both are accepted and left in place.
 * - A string's maximum length is halved: Ajv counts code points, zod UTF-16 units (up to two
 *   per code point), so at most half the maximum in code points is within it in units (a
 *   minimum holds as it is: units are never fewer than code points).
 * - NaN is no number (Ajv's `strictNumbers`, which leaves infinities to zod too; JSON carries
 *   neither).
 * Key order may differ from zod's output; JSON does not give it meaning.
 */
export function compileBodySchema<Schema extends z.ZodTypeAny>(
  schema: Schema,
  options: FastAcceptOptions = { unknownKeys: 'refused' },
): BodyValidator<z.output<Schema>> {
  const accepts = compileFastAccept(schema, options);
  return (value) => (accepts(value) ? { success: true, data: value as z.output<Schema> } : schema.safeParse(value));
}

export interface FastAcceptOptions {
  /** Whether a key zod would leave out (one the schema does not name, `__proto__`) sends the value to zod, or is kept. */
  unknownKeys: 'refused' | 'kept';
}

/** The compiled check alone: true only for values zod accepts (and, unknown keys refused, returns as they are). */
export function compileFastAccept(
  schema: z.ZodTypeAny,
  options: FastAcceptOptions = { unknownKeys: 'refused' },
): (value: unknown) => boolean {
  const refused = options.unknownKeys === 'refused';
  const derived = zodToJsonSchema(schema, {
    $refStrategy: 'none',
    target: 'jsonSchema7',
    // 'passthrough' gives the objects zod strips `additionalProperties: false`; 'strict' only `.strict()` ones.
    removeAdditionalStrategy: refused ? 'passthrough' : 'strict',
  });
  const ajv = new Ajv({ strict: false, strictNumbers: true, allErrors: false, validateFormats: false });
  const accepts = ajv.compile(adjusted(derived, refused));
  return (value) => accepts(value);
}

const NO_PROTO_KEY = { not: { const: '__proto__' } };

/** The derived schema with string maxima halved and, when `refuseProtoKey`, every object schema refusing a `__proto__` key. */
function adjusted(node: unknown, refuseProtoKey: boolean): Record<string, unknown> {
  return visit(node) as Record<string, unknown>;
  function visit(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== 'object' || value === null) return value;
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      // Property names are data, not schemas (`properties`), and `const`/`enum` are values.
      copy[key] = key === 'const' || key === 'enum' || key === 'default' ? child : key === 'properties' ? mapValues(child) : visit(child);
    }
    if (typeof copy.maxLength === 'number') copy.maxLength = Math.floor(copy.maxLength / 2);
    const type = copy.type;
    if (refuseProtoKey && (type === 'object' || (Array.isArray(type) && type.includes('object')))) copy.propertyNames = NO_PROTO_KEY;
    return copy;
  }
  function mapValues(properties: unknown): unknown {
    if (typeof properties !== 'object' || properties === null) return properties;
    const copy: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(properties)) copy[name] = visit(child);
    return copy;
  }
}
