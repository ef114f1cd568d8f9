import { readFileSync } from 'node:fs';

/** The package version, for the OpenAPI document and `--version`. */
export function packageVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
