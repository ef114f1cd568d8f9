import type { ZodTypeAny, ZodTypeDef } from 'zod';
import { ignoreOverride, zodToJsonSchema } from 'zod-to-json-schema';

export type JsonSchema = Record<string, unknown>;

/**
 * Zod schemas as JSON Schema 2020-12 (the dialect of OpenAPI 3.1). zod-to-json-schema's
 * 2019-09 target is used: for the keywords the contract produces it is the same as 2020-12
 * (no tuples, no `definitions`), and a nullable field is `type: [..., "null"]` or
 * `anyOf: [..., { type: "null" }]`, never OpenAPI 3.0's `nullable`.
 * A schema given a component name is written once under components/schemas and referred
 * to with `$ref` everywhere else.
 */
export class JsonSchemaWriter {
  private readonly names = new Map<ZodTypeDef, string>();

  constructor(private readonly components: Record<string, ZodTypeAny>) {
    for (const [name, schema] of Object.entries(components)) this.names.set(schema._def, name);
  }

  /** The JSON Schema of `schema`; named schemas inside it (or itself, when `inline` is false) become `$ref`s. */
  write(schema: ZodTypeAny, inline = false): JsonSchema {
    const root = schema._def;
    const output = zodToJsonSchema(schema, {
      target: 'jsonSchema2019-09',
      $refStrategy: 'none',
      // Objects stay open (no `additionalProperties: false`): the server ignores unknown request
      // fields, and replies may gain fields.
      removeAdditionalStrategy: 'strict',
      allowedAdditionalProperties: undefined,
      override: (def, refs) => {
        const name = this.names.get(def);
        const isRoot = def === root && refs.currentPath.length <= 1;
        if (name === undefined || (isRoot && inline)) return ignoreOverride;
        return { $ref: `#/components/schemas/${name}` };
      },
    }) as JsonSchema;
    delete output.$schema;
    describeConstants(output);
    return output;
  }

  /** The component name of a schema, if it has one. */
  nameOf(schema: ZodTypeAny): string | undefined {
    return this.names.get(schema._def);
  }

  /** Every named schema, for components/schemas. */
  writeComponents(): Record<string, JsonSchema> {
    return Object.fromEntries(Object.entries(this.components).map(([name, schema]) => [name, this.write(schema, true)]));
  }
}

/** A field with one possible value says so, so every field of the document has a description. */
function describeConstants(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) describeConstants(item);
    return;
  }
  if (typeof schema !== 'object' || schema === null) return;
  const record = schema as JsonSchema;
  if ('const' in record && record.description === undefined) record.description = `Always ${JSON.stringify(record.const)}.`;
  for (const value of Object.values(record)) describeConstants(value);
}
