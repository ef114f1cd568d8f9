import { readFileSync } from 'node:fs';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { parseDecimalToNano, PRICE_KEYS } from './price';
import type { Environment } from './environment';
import { findDeploymentProblems } from './deployments';
import { ConfigSchema, findCatalogueProblems, type Config } from './schema';
import { packagePath } from '../paths';

export type { Config, ModelConfig, ProviderConfig } from './schema';
export { LOG_LEVELS, type Environment, type LogLevel } from './environment';

export interface ConfigProblem {
  /** The configuration file, or `environment` for an environment variable. */
  file: string;
  line: number | null;
  column: number | null;
  /** Dotted path in the file (`models[2].pricing`), or the variable name. */
  path: string;
  message: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: ConfigProblem[]) {
    const lines = problems.map(formatProblem);
    super(`Invalid gateway configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`);
  }
}

const DEFAULT_CONFIG_PATH = packagePath('config', 'default.yaml');
const ENVIRONMENT = 'environment';

function formatProblem(problem: ConfigProblem): string {
  const position = problem.line === null ? problem.file : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
  return `${position}: ${problem.path}: ${problem.message}`;
}

/** Reads the file given, else `GATEWAY_CONFIG`, else the bundled `config/default.yaml`. */
export function loadConfig(options: { path?: string; env: Environment }): Config {
  const path = nonEmpty(options.path) ?? nonEmpty(options.env.GATEWAY_CONFIG) ?? DEFAULT_CONFIG_PATH;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError([{ file: path, line: null, column: null, path: '(file)', message: `cannot be read: ${reason}` }]);
  }
  return parseConfigText(text, path, options.env);
}

/** Parses and validates configuration text with the environment; `fileName` labels the problems. */
export function parseConfigText(text: string, fileName: string, env: Environment): Config {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): Pick<ConfigProblem, 'file' | 'line' | 'column'> => {
    const { line, col } = lineCounter.linePos(offset);
    return { file: fileName, line, column: col };
  };

  // A syntax error makes the rest of the tree unreliable: report only those.
  if (document.errors.length > 0) {
    throw new ConfigError(
      document.errors.map((error) => ({ ...at(error.pos[0]), path: '(yaml)', message: error.message.split('\n')[0] ?? error.code })),
    );
  }
  if (document.contents === null) {
    throw new ConfigError([{ ...at(0), path: '(root)', message: 'the file is empty' }]);
  }

  let raw: unknown;
  try {
    raw = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Only alias expansion can fail here (a "billion laughs" file); report it like syntax.
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError([{ ...at(0), path: '(yaml)', message }]);
  }
  const problems: ConfigProblem[] = [];
  const report = (path: (string | number)[], message: string, useKey = false): void => {
    problems.push({ ...at(locate(document, path, useKey)), path: formatPath(path), message });
  };

  const parsed = ConfigSchema.safeParse({ source: fileName, file: raw, environment: env }, { errorMap: describeIssue });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [part, ...path] = issue.path;
      if (part === ENVIRONMENT) {
        problems.push({ file: ENVIRONMENT, line: null, column: null, path: String(path[0]), message: issue.message });
      } else if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) report([...path, key], 'unknown key', true);
      } else {
        // Zod's "Number must be greater than 0" reads better after the path as "must be greater than 0".
        report(path, issue.message.replace(/^(Number|String|Array) must/, 'must'));
      }
    }
    // The schema skips cross-entry rules when an entry is malformed; run them regardless.
    for (const problem of findCatalogueProblems(raw)) report(problem.path, problem.message);
  } else {
    // docs/routing.md: the deployment rules read the file as written.
    const root = raw as { models: unknown[]; providers: Record<string, unknown> };
    for (const problem of findDeploymentProblems(root.models, Object.keys(root.providers))) report(problem.path, problem.message);
  }
  checkPriceTexts(document, text, raw, report);

  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(sortAndDeduplicate(problems));
  }
  return parsed.data;
}

function describeIssue(issue: z.ZodIssueOptionalMessage, context: z.ErrorMapCtx): { message: string } {
  if (issue.code === 'invalid_type' && issue.received === 'undefined') return { message: 'is required' };
  if (issue.code === 'invalid_type') return { message: `expected ${issue.expected}, got ${issue.received}` };
  if (issue.code === 'invalid_enum_value') {
    return { message: `must be one of ${issue.options.join(', ')}; got ${JSON.stringify(issue.received)}` };
  }
  return { message: context.defaultError };
}

/**
 * Prices are billed exactly from their decimal text (docs/pricing.md): a price whose text has
 * more than 9 decimals is refused even when its double happens to round to fewer.
 */
function checkPriceTexts(
  document: Document,
  text: string,
  raw: unknown,
  report: (path: (string | number)[], message: string) => void,
): void {
  const models = typeof raw === 'object' && raw !== null && 'models' in raw ? raw.models : undefined;
  if (!Array.isArray(models)) return;
  models.forEach((_, index) => {
    for (const keys of PRICE_KEYS.flatMap((key) => [[key], ['long_context', key]])) {
      const path = ['models', index, 'pricing', ...keys];
      const node = resolve(document, document.getIn(path, true));
      // Non-numbers and out-of-range values are the schema's to report.
      const inRange = isScalar(node) && typeof node.value === 'number' && node.value >= 0 && node.value <= 1_000_000;
      if (!inRange || !node.range) continue;
      const parsed = parseDecimalToNano(text.slice(node.range[0], node.range[1]));
      if (!parsed.ok) report(path, parsed.message);
    }
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function resolve(document: Document, node: unknown): unknown {
  return isAlias(node) ? node.resolve(document) : node;
}

/**
 * Source offset for a path: the node itself, or, when it is missing, the deepest ancestor
 * that exists (the map that lacks the key). `useKey` points at the key rather than its value.
 */
function locate(document: Document, path: (string | number)[], useKey: boolean): number {
  let node: unknown = document.contents;
  let offset = (node as Node | null)?.range?.[0] ?? 0;
  for (const [depth, segment] of path.entries()) {
    node = resolve(document, node);
    let next: unknown;
    let keyOffset: number | undefined;
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      next = pair?.value;
      keyOffset = isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
    } else if (isSeq(node) && typeof segment === 'number') {
      next = node.items[segment];
    }
    const isLast = depth === path.length - 1;
    if (isLast && useKey && keyOffset !== undefined) return keyOffset;
    const nextOffset = (resolve(document, next) as Node | undefined)?.range?.[0] ?? keyOffset;
    if (nextOffset === undefined) return offset;
    offset = nextOffset;
    node = next;
  }
  return offset;
}

function formatPath(path: (string | number)[]): string {
  if (path.length === 0) return '(root)';
  return path.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}

function sortAndDeduplicate(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  const unique = problems.filter((problem) => {
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // Environment problems (no line) after the file's, file problems in reading order.
  return unique.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.column ?? 0) - (b.column ?? 0));
}
