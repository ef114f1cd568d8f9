import { z } from 'zod';
import { CapabilitySchema } from '../../contract';
import { PROVIDER_TYPES } from '../providers/provider-types';
import { configObject } from './config-object';
import { DeploymentSchema, deploymentsOf, findDeploymentProblems, RoutingSchema } from './deployments';
import { EnvironmentSchema } from './environment';
import { PricingSchema } from './pricing-schema';
import { TracingSectionSchema, tracingSettings } from './tracing-section';

/**
 * The configuration (docs/configuration.md), declared once: the YAML file as the operator
 * writes it (snake_case keys, every object strict so that a typo such as `base_ur` is an error
 * at start rather than a silently ignored setting, defaults here) plus the environment, and
 * `Config`, what the code reads (camelCase), is this schema's output.
 */

const positiveInteger = z.number().int().positive();
const nonNegativeInteger = z.number().int().nonnegative();

export const ProviderTypeSchema = z.enum(['openai', 'anthropic', 'gemini', 'mock', 'azure', 'bedrock', 'vertex']);
export type ProviderType = z.infer<typeof ProviderTypeSchema>;

export const ServerSectionSchema = configObject(
  {
    body_limit_bytes: positiveInteger.default(8 * 1024 * 1024),
    // Express `trust proxy`: true/false, a hop count, or a list of addresses/subnets.
    trust_proxy: z.union([z.boolean(), nonNegativeInteger, z.string().min(1)]).default(false),
    // Slow clients (slowloris): the request line and headers, then the whole request body,
    // must arrive within these. They do not bound the response: streams may last longer.
    headers_timeout_ms: positiveInteger.default(30_000),
    request_timeout_ms: positiveInteger.default(60_000),
    // Idle keep-alive sockets are closed after this; above a load balancer's own idle timeout.
    keep_alive_timeout_ms: positiveInteger.default(65_000),
    // One full garbage collection once the gateway is quiet after traffic (memory/idle-collector.ts).
    idle_gc: z.boolean().default(true),
  },
  (server, context) => {
    if (server.headers_timeout_ms > server.request_timeout_ms) {
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['headers_timeout_ms'],
        message: 'must not be greater than request_timeout_ms',
      });
    }
  },
);

export const UpstreamSectionSchema = configObject({
  connect_timeout_ms: positiveInteger.default(5_000),
  first_byte_timeout_ms: positiveInteger.default(60_000),
  idle_timeout_ms: positiveInteger.default(60_000),
  // How long an idle upstream connection is kept open, whatever the upstream's Keep-Alive hint.
  keep_alive_ms: positiveInteger.default(20_000),
  max_retries: nonNegativeInteger.max(10).default(2),
  retry_base_delay_ms: nonNegativeInteger.default(200),
  // docs/routing.md, "Health and cooldown": a failing deployment rests for the upstream's
  // retry-after (at most cooldown_max_ms), else cooldown_base_ms doubled per consecutive failure.
  cooldown_base_ms: positiveInteger.default(1_000),
  cooldown_max_ms: positiveInteger.default(300_000),
});

const httpUrl = z
  .string()
  .url()
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http:// or https:// URL');

export const ProviderSchema = configObject(
  {
    type: ProviderTypeSchema,
    // Without its trailing slashes, since adapters append their paths; empty for a mock without one.
    base_url: httpUrl.optional().transform((url) => (url ?? '').replace(/\/+$/, '')),
    // Where the key is read from; empty key when the variable is unset: calls then answer 502.
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name, e.g. OPENAI_API_KEY')
      .optional()
      .transform((name) => name ?? null),
    // Free-form adapter options, e.g. `latency_ms` of the mock provider.
    options: z.record(z.unknown()).default({}),
    // An openai-type upstream that serves POST /responses itself: /v1/responses requests go to
    // it as they came (docs/openai-responses.md); otherwise they are translated to chat.
    responses_api: z.boolean().default(false),
    // /v1/responses translated for this provider: hosted tools (web_search, …) it cannot run
    // are dropped and named in x-gateway-dropped-tools, or refused with a 400.
    responses_hosted_tools: z.enum(['drop', 'reject']).default('drop'),
  },
  (provider, context) => {
    if (provider.responses_api && provider.type !== 'openai' && !azureServesResponses(provider.type, provider.options)) {
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['responses_api'],
        message: 'only an openai-type provider or an azure-type one on the v1 API (no api_version) can serve the Responses API',
      });
    }
    const providerType = PROVIDER_TYPES[provider.type];
    if (providerType.needsBaseUrl && provider.base_url === '') {
      context.addIssue({ code: z.ZodIssueCode.custom, path: ['base_url'], message: `is required for type ${provider.type}` });
    }
    if (providerType.options) {
      const options = providerType.options.safeParse(provider.options);
      for (const issue of options.success ? [] : options.error.issues) {
        context.addIssue({ ...issue, path: ['options', ...issue.path] });
      }
    }
  },
);

/** Azure OpenAI's v1 API serves /openai/v1/responses; its deployment-path API is not used for it (docs/azure.md). */
function azureServesResponses(type: string, options: Record<string, unknown>): boolean {
  return type === 'azure' && options.api_version === undefined;
}

export const ProviderNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'provider names are letters, digits, "-" and "_"');

export const LimitsSectionSchema = configObject({
  default_rpm: positiveInteger.default(600),
  default_tpm: positiveInteger.default(1_000_000),
  usage_key_rpm: positiveInteger.default(30),
  usage_ip_rpm: positiveInteger.default(120),
  // Wrong admin tokens (Bearer or dashboard sign-in) and login links per client IP and minute;
  // past it, that IP's admin-token attempts are refused (429) until the minute has refilled.
  admin_auth_failures_per_minute: positiveInteger.default(10),
  // With REDIS_URL: what the limiter does while Redis is unreachable (docs/rate-limits.md).
  // `open`: per-instance in-memory limits; `closed`: 503 rate_limiter_unavailable.
  redis_failure: z.enum(['open', 'closed']).default('open'),
  // Streamed completions open at once per API key, per instance; beyond: 429 (retry-after 1).
  max_streams_per_key: positiveInteger.default(100),
});

export const UsageSectionSchema = configObject({
  retention_days: positiveInteger.default(400),
  flush_interval_ms: positiveInteger.default(1_000),
  flush_batch_size: positiveInteger.default(500),
  max_buffered_events: positiveInteger.default(1_000_000),
  // docs/usage-durability.md: where a usage event is kept from the reply until it is stored.
  durability: z.enum(['journal', 'redis_stream', 'memory']).default('journal'),
  journal_dir: z.string().min(1).default('data/usage-journal'),
  journal_fsync_ms: positiveInteger.default(100),
  // redis_stream: an entry (or a dead instance's calls) unacknowledged this long is taken over.
  stream_claim_idle_ms: positiveInteger.default(30_000),
  stream_prefix: z.string().min(1).default('mg:usage:'),
});

/** docs/request-log.md: one record per model request, and their bodies only where the operator turns them on. */
export const RequestLogSectionSchema = configObject({
  enabled: z.boolean().default(true),
  retention_days: positiveInteger.default(30),
  bodies: configObject({
    retention_days: positiveInteger.default(7),
    // Each body (request, response) is cut to this many bytes of UTF-8.
    max_bytes: positiveInteger.default(65_536),
    // Whose bodies are kept: account ids, and key ids (a key of an account not listed).
    accounts: z.array(z.string().min(1)).default([]),
    keys: z.array(z.string().min(1)).default([]),
  }).default({}),
});

export const ModelSchema = configObject(
  {
    id: z.string().regex(/^\S+$/, 'must be non-empty and contain no spaces'),
    // Provider name, a key of `providers`: the model's one deployment. Or `deployments` (docs/routing.md).
    provider: z.string().min(1).optional(),
    deployments: z.array(DeploymentSchema).min(1).optional(),
    routing: RoutingSchema.default({}),
    upstream_model: z.string().min(1).optional(),
    owned_by: z.string().min(1).optional(),
    capabilities: z.array(CapabilitySchema).min(1),
    context_window: positiveInteger,
    // The provider's output ceiling; the default `max_tokens` where one is mandatory (Anthropic).
    max_output_tokens: positiveInteger.optional(),
    pricing: PricingSchema,
    // Model ids tried in order on upstream failure.
    fallbacks: z.array(z.string().min(1)).default([]),
    // Values a request's `dimensions` may take; absent = the parameter is refused.
    dimensions: z.array(positiveInteger).min(1).optional(),
  },
  (model, context) => {
    if (model.provider !== undefined && model.deployments !== undefined) {
      context.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['deployments'],
        message: 'a model names its provider or lists its deployments, not both',
      });
    } else if (model.provider === undefined && model.deployments === undefined) {
      context.addIssue({ code: z.ZodIssueCode.custom, path: ['provider'], message: "is required (or list the model's deployments)" });
    }
  },
).transform(({ upstreamModel, ownedBy, deployments: written, ...model }) => {
  const deployments = deploymentsOf({ id: model.id, provider: model.provider, upstreamModel: upstreamModel ?? model.id }, written);
  // The first deployment's provider names the model where one provider is meant (owned_by, metrics before an answer).
  const provider = deployments[0]?.provider ?? '';
  return {
    ...model,
    provider,
    deployments,
    upstreamModel: upstreamModel ?? model.id,
    ownedBy: ownedBy ?? provider,
    // The gateway routes by kind: a model answers either chat completions or embeddings.
    kind: model.capabilities.includes('embeddings') ? ('embeddings' as const) : ('chat' as const),
  };
});

export const ConfigFileSchema = configObject(
  {
    server: ServerSectionSchema.default({}),
    upstream: UpstreamSectionSchema.default({}),
    // By provider name; each entry also carries its name.
    providers: z
      .record(ProviderNameSchema, ProviderSchema)
      .transform((providers) => Object.fromEntries(Object.entries(providers).map(([name, provider]) => [name, { name, ...provider }]))),
    limits: LimitsSectionSchema.default({}),
    usage: UsageSectionSchema.default({}),
    request_log: RequestLogSectionSchema.default({}),
    tracing: TracingSectionSchema.default({}),
    // In file order, which is the order of `GET /v1/models`.
    models: z.array(ModelSchema).min(1),
  },
  (file, context) => {
    for (const problem of findCatalogueProblems(file)) {
      context.addIssue({ code: z.ZodIssueCode.custom, path: problem.path, message: problem.message });
    }
  },
);

/**
 * Everything read at start: the file (`source` names it) and the environment, whose settings
 * join the file's sections and whose variables named by `api_key_env` give the providers' keys.
 */
export const ConfigSchema = z
  .object({ source: z.string(), file: ConfigFileSchema, environment: EnvironmentSchema })
  .transform(({ source, file, environment }) => ({
    source,
    ...file,
    server: { ...file.server, port: environment.PORT, host: environment.HOST },
    // USAGE_JOURNAL_DIR replaces `usage.journal_dir` and fixes it: a directory given to this
    // instance, never traded for another slot (docs/usage-durability.md, "One directory, one process").
    usage: {
      ...file.usage,
      journalDir: environment.USAGE_JOURNAL_DIR ?? file.usage.journalDir,
      journalDirFixed: environment.USAGE_JOURNAL_DIR !== undefined,
    },
    providers: Object.fromEntries(
      Object.entries(file.providers).map(([name, provider]) => {
        const key = provider.apiKeyEnv === null ? undefined : environment[provider.apiKeyEnv];
        return [name, { ...provider, apiKey: typeof key === 'string' ? key : '' }];
      }),
    ),
    databaseUrl: environment.DATABASE_URL,
    redisUrl: environment.REDIS_URL,
    adminToken: environment.GATEWAY_ADMIN_TOKEN,
    publicUrl: environment.GATEWAY_PUBLIC_URL,
    metricsToken: environment.GATEWAY_METRICS_TOKEN,
    logLevel: environment.LOG_LEVEL,
    tracing: tracingSettings(file.tracing, environment),
  }));

export type Config = z.output<typeof ConfigSchema>;
export type ProviderConfig = Config['providers'][string];
export type ModelConfig = Config['models'][number];

export interface CatalogueProblem {
  path: (string | number)[];
  message: string;
}

type ModelKind = 'chat' | 'embeddings';

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function describeKind(kind: ModelKind): string {
  return kind === 'embeddings' ? 'an embeddings model' : 'a chat model';
}

function kindOf(capabilities: unknown): ModelKind | null {
  if (!Array.isArray(capabilities)) return null;
  return capabilities.includes('embeddings') ? 'embeddings' : 'chat';
}

/**
 * Rules across entries: provider references, unique ids, fallbacks, dimensions.
 * Written against unknown input so that the loader can run it even when the shape check
 * failed elsewhere in the file, and list every problem of a bad file at once.
 */
export function findCatalogueProblems(input: unknown): CatalogueProblem[] {
  const problems: CatalogueProblem[] = [];
  const root = asRecord(input);
  const models = root?.models;
  if (!root || !Array.isArray(models)) return problems;
  const providers = asRecord(root.providers);
  const providerNames = providers ? Object.keys(providers) : null;

  // The deployment rules read the file as written; the schema's output lists every model's deployments.
  if (!models.some((entry) => asRecord(entry)?.kind !== undefined)) problems.push(...findDeploymentProblems(models, providerNames));

  const firstIndexById = new Map<string, number>();
  const kindById = new Map<string, ModelKind | null>();
  models.forEach((entry, index) => {
    const model = asRecord(entry);
    if (!model || typeof model.id !== 'string') return;
    const first = firstIndexById.get(model.id);
    if (first === undefined) {
      firstIndexById.set(model.id, index);
      kindById.set(model.id, kindOf(model.capabilities));
    } else {
      problems.push({ path: ['models', index, 'id'], message: `duplicate model id "${model.id}" (first declared as models[${first}])` });
    }
  });

  models.forEach((entry, index) => {
    const model = asRecord(entry);
    if (!model) return;
    const kind = kindOf(model.capabilities);

    if (providerNames && typeof model.provider === 'string' && !providerNames.includes(model.provider)) {
      const declared = providerNames.length > 0 ? providerNames.join(', ') : 'none';
      problems.push({ path: ['models', index, 'provider'], message: `unknown provider "${model.provider}" (declared: ${declared})` });
    }

    // The gateway routes by kind: a model answers either chat completions or embeddings.
    if (kind === 'embeddings' && Array.isArray(model.capabilities) && model.capabilities.length > 1) {
      problems.push({ path: ['models', index, 'capabilities'], message: 'an embeddings model has no other capability' });
    }
    if (model.dimensions !== undefined && kind === 'chat') {
      problems.push({ path: ['models', index, 'dimensions'], message: 'only embeddings models take dimensions' });
    }
    if (Array.isArray(model.dimensions) && new Set(model.dimensions).size !== model.dimensions.length) {
      problems.push({ path: ['models', index, 'dimensions'], message: 'values must be unique' });
    }
    if (Array.isArray(model.capabilities) && new Set(model.capabilities).size !== model.capabilities.length) {
      problems.push({ path: ['models', index, 'capabilities'], message: 'values must be unique' });
    }

    if (!Array.isArray(model.fallbacks)) return;
    const seen = new Set<string>();
    model.fallbacks.forEach((fallback, position) => {
      if (typeof fallback !== 'string') return;
      const path = ['models', index, 'fallbacks', position];
      if (fallback === model.id) {
        problems.push({ path, message: 'a model cannot fall back to itself' });
      } else if (!kindById.has(fallback)) {
        problems.push({ path, message: `unknown model "${fallback}"` });
      } else if (seen.has(fallback)) {
        problems.push({ path, message: `"${fallback}" is listed twice` });
      } else {
        const fallbackKind = kindById.get(fallback);
        if (kind && fallbackKind && fallbackKind !== kind) {
          problems.push({
            path,
            message: `"${fallback}" is ${describeKind(fallbackKind)}; ${describeKind(kind)} can only fall back to ${kind} models`,
          });
        }
      }
      seen.add(fallback);
    });
  });
  return problems;
}
