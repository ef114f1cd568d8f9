import { readFileSync } from 'node:fs';
import { packagePath } from './paths';

/** The package version, for the OpenAPI document and `--version`. */
export function packageVersion(): string {
  const text = readFileSync(packagePath('package.json'), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
