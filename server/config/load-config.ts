import { readFileSync } from 'node:fs';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { parseDecimalToNano } from './price';
import { ConfigFileSchema, findCatalogueProblems, type Capability, type ConfigFile, type ProviderType, type UsageSection } from './schema';
import { packagePath } from '../paths';

/** Settings read once at start: the YAML file (decisions.md §6) plus the environment overrides. */
export interface Config {
  /** The file the configuration came from. */
  source: string;
  server: {
    port: number;
    host: string;
    bodyLimitBytes: number;
    trustProxy: boolean | number | string;
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    keepAliveTimeoutMs: number;
    /** Give the heap's garbage back when quiet after traffic (server/memory/idle-collector.ts). */
    idleGc: boolean;
  };
  /** `file:…` = SQLite, `postgres://…` = Postgres. */
  databaseUrl: string;
  redisUrl: string | null;
  adminToken: string | null;
  /** GATEWAY_METRICS_TOKEN: when set, GET /metrics needs it as a bearer token; open otherwise. */
  metricsToken: string | null;
  logLevel: LogLevel;
  upstream: {
    connectTimeoutMs: number;
    firstByteTimeoutMs: number;
    idleTimeoutMs: number;
    /** How long an idle upstream connection is kept open, whatever the upstream's Keep-Alive hint. */
    keepAliveMs: number;
    maxRetries: number;
    retryBaseDelayMs: number;
  };
  /** By provider name (`providers.<name>` in the file). */
  providers: Record<string, ProviderConfig>;
  limits: {
    defaultRpm: number;
    defaultTpm: number;
    usageKeyRpm: number;
    usageIpRpm: number;
    adminAuthFailuresPerMinute: number;
    redisFailure: 'open' | 'closed';
    maxStreamsPerKey: number;
  };
  usage: {
    retentionDays: number;
    flushIntervalMs: number;
    flushBatchSize: number;
    maxBufferedEvents: number;
    durability: UsageSection['durability'];
    journalDir: string;
    journalFsyncMs: number;
    streamClaimIdleMs: number;
    streamPrefix: string;
  };
  /** In file order, which is the order of `GET /v1/models`. */
  models: ModelConfig[];
}

export interface ProviderConfig {
  name: string;
  type: ProviderType;
  /** Empty for a mock provider declared without one. */
  baseUrl: string;
  /** From env[api_key_env]; empty when unset: calls through this provider then answer 502. */
  apiKey: string;
  apiKeyEnv: string | null;
  options: Record<string, unknown>;
}

export interface ModelConfig {
  id: string;
  /** Provider name, a key of `Config.providers`. */
  provider: string;
  upstreamModel: string;
  ownedBy: string;
  capabilities: Capability[];
  kind: 'chat' | 'embeddings';
  contextWindow: number;
  /** The provider's output ceiling; the default `max_tokens` where one is mandatory (Anthropic). */
  maxOutputTokens?: number;
  pricing: {
    /** As written, for display (`GET /v1/models`). */
    inputPerMillion: number;
    outputPerMillion: number;
    /** Exact nano-dollars per million tokens, for accounting (decisions.md §3). */
    inputNanoPerMillion: bigint;
    outputNanoPerMillion: bigint;
  };
  /** Model ids tried in order on upstream failure. */
  fallbacks: string[];
  /** Values a request's `dimensions` may take; absent = the parameter is refused. */
  dimensions?: number[];
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

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

export type Environment = Record<string, string | undefined>;

const DEFAULT_CONFIG_PATH = packagePath('config', 'default.yaml');
const DEFAULT_DATABASE_URL = 'file:./data/gateway.db';
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

/** Parses and validates configuration text; `fileName` only labels the problems. */
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

  const parsed = ConfigFileSchema.safeParse(raw, { errorMap: describeIssue });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) report([...issue.path, key], 'unknown key', true);
      } else {
        // Zod's "Number must be greater than 0" reads better after the path as "must be greater than 0".
        report(issue.path, issue.message.replace(/^(Number|String|Array) must/, 'must'));
      }
    }
    // The schema skips cross-entry rules when an entry is malformed; run them regardless.
    for (const problem of findCatalogueProblems(raw)) report(problem.path, problem.message);
  }
  const prices = readExactPrices(document, text, raw, report);
  const settings = readEnvironment(env, problems);

  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(sortAndDeduplicate(problems));
  }
  return buildConfig(fileName, parsed.data, prices, settings, env);
}

function describeIssue(issue: z.ZodIssueOptionalMessage, context: z.ErrorMapCtx): { message: string } {
  if (issue.code === 'invalid_type' && issue.received === 'undefined') return { message: 'is required' };
  if (issue.code === 'invalid_type') return { message: `expected ${issue.expected}, got ${issue.received}` };
  if (issue.code === 'invalid_enum_value') {
    return { message: `must be one of ${issue.options.join(', ')}; got ${JSON.stringify(issue.received)}` };
  }
  return { message: context.defaultError };
}

interface ExactPrice {
  input: bigint;
  output: bigint;
}

/** Nano-dollar prices read from the YAML source text itself, not from the parsed floats. */
function readExactPrices(
  document: Document,
  text: string,
  raw: unknown,
  report: (path: (string | number)[], message: string) => void,
): ExactPrice[] {
  const prices: ExactPrice[] = [];
  const models = typeof raw === 'object' && raw !== null && 'models' in raw ? raw.models : undefined;
  if (!Array.isArray(models)) return prices;
  models.forEach((_, index) => {
    const read = (key: string): bigint => {
      const path = ['models', index, 'pricing', key];
      const node = resolve(document, document.getIn(path, true));
      // Non-numbers and out-of-range values are the schema's to report.
      const inRange = isScalar(node) && typeof node.value === 'number' && node.value >= 0 && node.value <= 1_000_000;
      if (!inRange || !node.range) return 0n;
      const parsed = parseDecimalToNano(text.slice(node.range[0], node.range[1]));
      if (parsed.ok) return parsed.nano;
      report(path, parsed.message);
      return 0n;
    };
    prices.push({ input: read('input_per_million'), output: read('output_per_million') });
  });
  return prices;
}

interface Settings {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | null;
  adminToken: string | null;
  metricsToken: string | null;
  logLevel: LogLevel;
  /** USAGE_JOURNAL_DIR: replaces `usage.journal_dir` (a volume mounted per instance). */
  usageJournalDir: string | null;
}

function readEnvironment(env: Environment, problems: ConfigProblem[]): Settings {
  const fail = (name: string, message: string): void => {
    problems.push({ file: ENVIRONMENT, line: null, column: null, path: name, message });
  };
  const portText = nonEmpty(env.PORT) ?? '8080';
  const port = /^\d+$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) fail('PORT', `must be a port number from 1 to 65535, got "${portText}"`);

  const databaseUrl = nonEmpty(env.DATABASE_URL) ?? DEFAULT_DATABASE_URL;
  if (!/^(file:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    fail('DATABASE_URL', 'must start with file: (SQLite) or postgres:// (Postgres)');
  }
  const redisUrl = nonEmpty(env.REDIS_URL) ?? null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) fail('REDIS_URL', 'must start with redis:// or rediss://');

  const logLevelText = nonEmpty(env.LOG_LEVEL) ?? 'info';
  const logLevel = LOG_LEVELS.find((level) => level === logLevelText.toLowerCase());
  if (!logLevel) fail('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevelText}"`);

  return {
    port,
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    databaseUrl,
    redisUrl,
    adminToken: nonEmpty(env.GATEWAY_ADMIN_TOKEN) ?? null,
    metricsToken: nonEmpty(env.GATEWAY_METRICS_TOKEN) ?? null,
    logLevel: logLevel ?? 'info',
    usageJournalDir: nonEmpty(env.USAGE_JOURNAL_DIR) ?? null,
  };
}

function buildConfig(source: string, file: ConfigFile, prices: ExactPrice[], settings: Settings, env: Environment): Config {
  const providers: Record<string, ProviderConfig> = {};
  for (const [name, entry] of Object.entries(file.providers)) {
    providers[name] = {
      name,
      type: entry.type,
      baseUrl: (entry.base_url ?? '').replace(/\/+$/, ''),
      apiKey: entry.api_key_env ? (env[entry.api_key_env] ?? '') : '',
      apiKeyEnv: entry.api_key_env ?? null,
      options: entry.options ?? {},
    };
  }
  const models = file.models.map((entry, index): ModelConfig => {
    const price = prices[index] ?? { input: 0n, output: 0n };
    return {
      id: entry.id,
      provider: entry.provider,
      upstreamModel: entry.upstream_model ?? entry.id,
      ownedBy: entry.owned_by ?? entry.provider,
      capabilities: entry.capabilities,
      kind: entry.capabilities.includes('embeddings') ? 'embeddings' : 'chat',
      contextWindow: entry.context_window,
      ...(entry.max_output_tokens === undefined ? {} : { maxOutputTokens: entry.max_output_tokens }),
      pricing: {
        inputPerMillion: entry.pricing.input_per_million,
        outputPerMillion: entry.pricing.output_per_million,
        inputNanoPerMillion: price.input,
        outputNanoPerMillion: price.output,
      },
      fallbacks: entry.fallbacks ?? [],
      ...(entry.dimensions === undefined ? {} : { dimensions: entry.dimensions }),
    };
  });
  return {
    source,
    server: {
      port: settings.port,
      host: settings.host,
      bodyLimitBytes: file.server.body_limit_bytes,
      trustProxy: file.server.trust_proxy,
      headersTimeoutMs: file.server.headers_timeout_ms,
      requestTimeoutMs: file.server.request_timeout_ms,
      keepAliveTimeoutMs: file.server.keep_alive_timeout_ms,
      idleGc: file.server.idle_gc,
    },
    databaseUrl: settings.databaseUrl,
    redisUrl: settings.redisUrl,
    adminToken: settings.adminToken,
    metricsToken: settings.metricsToken,
    logLevel: settings.logLevel,
    upstream: {
      connectTimeoutMs: file.upstream.connect_timeout_ms,
      firstByteTimeoutMs: file.upstream.first_byte_timeout_ms,
      idleTimeoutMs: file.upstream.idle_timeout_ms,
      keepAliveMs: file.upstream.keep_alive_ms,
      maxRetries: file.upstream.max_retries,
      retryBaseDelayMs: file.upstream.retry_base_delay_ms,
    },
    providers,
    limits: {
      defaultRpm: file.limits.default_rpm,
      defaultTpm: file.limits.default_tpm,
      usageKeyRpm: file.limits.usage_key_rpm,
      usageIpRpm: file.limits.usage_ip_rpm,
      adminAuthFailuresPerMinute: file.limits.admin_auth_failures_per_minute,
      redisFailure: file.limits.redis_failure,
      maxStreamsPerKey: file.limits.max_streams_per_key,
    },
    usage: {
      retentionDays: file.usage.retention_days,
      flushIntervalMs: file.usage.flush_interval_ms,
      flushBatchSize: file.usage.flush_batch_size,
      maxBufferedEvents: file.usage.max_buffered_events,
      durability: file.usage.durability,
      journalDir: settings.usageJournalDir ?? file.usage.journal_dir,
      journalFsyncMs: file.usage.journal_fsync_ms,
      streamClaimIdleMs: file.usage.stream_claim_idle_ms,
      streamPrefix: file.usage.stream_prefix,
    },
    models,
  };
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
