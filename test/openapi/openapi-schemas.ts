import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';

/** The committed document, and Ajv (strict, JSON Schema 2020-12) loaded with it. */
export const documentPath = fileURLToPath(new URL('../../openapi/openapi.json', import.meta.url));

export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
  components: { schemas: Record<string, unknown> };
}

export function readDocument(): OpenApiDocument {
  return JSON.parse(readFileSync(documentPath, 'utf8')) as OpenApiDocument;
}

const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Ajv in strict mode with the whole document added under the id `openapi.json`, so a schema's
 * `#/components/schemas/…` references resolve. Union types (`type: ["string", "null"]`) are
 * JSON Schema's way of writing a nullable scalar, so they are allowed.
 */
export function strictAjv(document: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  // The document's own top-level fields are not JSON Schema keywords.
  for (const keyword of ['openapi', 'jsonSchemaDialect', 'info', 'servers', 'tags', 'paths', 'components']) ajv.addKeyword(keyword);
  // The one format the document uses (key expiry times): RFC 3339, as zod's datetime({ offset: true }) accepts.
  ajv.addFormat('date-time', { type: 'string', validate: (text: string) => RFC_3339.test(text) && !Number.isNaN(Date.parse(text)) });
  ajv.addSchema(document, 'openapi.json');
  return ajv;
}

const pointer = (...parts: string[]): string => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** A validator for the documented JSON body of `status` on `method path`. */
export function responseValidator(ajv: Ajv2020, path: string, method: string, status: number) {
  return ajv.compile({
    $ref: `openapi.json#/${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}`,
  });
}
