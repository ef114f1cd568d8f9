import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Dialect } from './databases';

/** Just enough of schema.prisma for the tests: models, their tables, scalar columns. */

export interface ModelColumns {
  model: string;
  table: string;
  /** Column name -> nullable. Relation fields are left out (they have no column). */
  columns: Map<string, boolean>;
}

const SCALAR_TYPES = new Set(['String', 'Int', 'BigInt', 'Boolean', 'DateTime', 'Float', 'Decimal', 'Bytes', 'Json', 'Unsupported']);

export function schemaText(dialect: Dialect): string {
  return readFileSync(fileURLToPath(new URL(`../../prisma/${dialect}/schema.prisma`, import.meta.url)), 'utf8');
}

/** The schema without comments, the generator and datasource blocks, and blank lines. */
export function modelsOnly(schema: string): string {
  return schema
    .replace(/\/\/.*$/gm, '')
    .replace(/^(generator|datasource)\s+\w+\s*\{[^}]*\}/gm, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n');
}

export function parseModels(schema: string): ModelColumns[] {
  const models: ModelColumns[] = [];
  for (const match of modelsOnly(schema).matchAll(/^model\s+(\w+)\s*\{([^}]*)\}/gm)) {
    const [, model = '', body = ''] = match;
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? model;
    const columns = new Map<string, boolean>();
    for (const line of body.split('\n').map((text) => text.trim())) {
      // A column Prisma cannot declare (a generated one) is Unsupported("<its type>").
      const field = /^(\w+)\s+(\w+)(?:\("[^"]*"\))?(\?|\[\])?(.*)$/.exec(line);
      if (field === null) continue;
      const [, name = '', type = '', modifier, attributes = ''] = field;
      if (!SCALAR_TYPES.has(type) || modifier === '[]') continue;
      columns.set(/@map\("([^"]+)"\)/.exec(attributes)?.[1] ?? name, modifier === '?');
    }
    models.push({ model, table, columns });
  }
  return models;
}
