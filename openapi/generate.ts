import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { packageVersion } from '../server/version';
import { buildOpenApiDocument } from './build-document';

/**
 * `npm run openapi` writes openapi/openapi.json from the contract; `npm run openapi:check`
 * fails when the committed file is stale or the document is not valid OpenAPI.
 */
const target = fileURLToPath(new URL('./openapi.json', import.meta.url));
const text = `${JSON.stringify(buildOpenApiDocument(packageVersion()), null, 2)}\n`;

// The validator dereferences in place: give it a copy.
await SwaggerParser.validate(JSON.parse(text) as Parameters<typeof SwaggerParser.validate>[0]);

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // Missing counts as stale.
  }
  if (committed !== text) {
    process.stderr.write('openapi/openapi.json is stale: run `npm run openapi` and commit the result.\n');
    process.exit(1);
  }
  process.stdout.write('openapi/openapi.json is up to date and valid.\n');
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target}\n`);
}
