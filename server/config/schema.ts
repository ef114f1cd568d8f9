import { z } from 'zod';
import { MockOptionsSchema } from '../providers/mock/mock-options';
import { numberToNano } from './price';

/**
 * The YAML configuration file (decisions.md §6), as written by the operator: snake_case keys,
 * every object strict so that a typo (`base_ur`) is an error at start rather than a silently
 * ignored setting. Defaults live here; load-config.ts turns the result into the runtime `Config`.
 */

const positiveInteger = z.number().int().positive();
const nonNegativeInteger = z.number().int().nonnegative();

export const CapabilitySchema = z.enum(['chat', 'code', 'vision', 'function_calling', 'json_mode', 'embeddings']);
export type Capability = z.infer<typeof CapabilitySchema>;

export const ProviderTypeSchema = z.enum(['openai', 'anthropic', 'gemini', 'mock']);
export type ProviderType = z.infer<typeof ProviderTypeSchema>;

export const ServerSectionSchema = z
  .object({
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
  })
  .strict()
  .superRefine((server, context) => {
    if (server.headers_timeout_ms > server.request_timeout_ms) {
      context.addIssue({ code: z.ZodIssueCode.custom, path: ['headers_timeout_ms'], message: 'must not be greater than request_timeout_ms' });
    }
  });
export type ServerSection = z.infer<typeof ServerSectionSchema>;

export const UpstreamSectionSchema = z
  .object({
    connect_timeout_ms: positiveInteger.default(5_000),
    first_byte_timeout_ms: positiveInteger.default(60_000),
    idle_timeout_ms: positiveInteger.default(60_000),
    keep_alive_ms: positiveInteger.default(20_000),
    max_retries: nonNegativeInteger.max(10).default(2),
    retry_base_delay_ms: nonNegativeInteger.default(200),
  })
  .strict();
export type UpstreamSection = z.infer<typeof UpstreamSectionSchema>;

const httpUrl = z
  .string()
  .url()
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http:// or https:// URL');

export const ProviderSchema = z
  .object({
    type: ProviderTypeSchema,
    base_url: httpUrl.optional(),
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name, e.g. OPENAI_API_KEY')
      .optional(),
    // Free-form adapter options, e.g. `latency_ms` of the mock provider.
    options: z.record(z.unknown()).optional(),
  })
  .strict()
  .superRefine((provider, context) => {
    // Only the mock provider works without a network address.
    if (provider.type !== 'mock' && provider.base_url === undefined) {
      context.addIssue({ code: z.ZodIssueCode.custom, path: ['base_url'], message: `is required for type ${provider.type}` });
    }
    // The mock's options are known here, so a misspelt one is reported with its line at start.
    if (provider.type === 'mock') {
      const options = MockOptionsSchema.safeParse(provider.options ?? {});
      for (const issue of options.success ? [] : options.error.issues) {
        context.addIssue({ ...issue, path: ['options', ...issue.path] });
      }
    }
  });
export type ProviderEntry = z.infer<typeof ProviderSchema>;

export const ProviderNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'provider names are letters, digits, "-" and "_"');

export const LimitsSectionSchema = z
  .object({
    default_rpm: positiveInteger.default(600),
    default_tpm: positiveInteger.default(1_000_000),
    usage_key_rpm: positiveInteger.default(30),
    usage_ip_rpm: positiveInteger.default(120),
    // Wrong admin tokens (Bearer or dashboard sign-in) and login links per client IP and minute;
    // past it, that IP's admin-token attempts are refused (429) until the minute has refilled.
    admin_auth_failures_per_minute: positiveInteger.default(10),
    // With REDIS_URL: what the limiter does while Redis is unreachable (decisions.md §4).
    // `open`: per-instance in-memory limits; `closed`: 503 rate_limiter_unavailable.
    redis_failure: z.enum(['open', 'closed']).default('open'),
    // Streamed completions open at once per API key, per instance; beyond: 429 (retry-after 1).
    max_streams_per_key: positiveInteger.default(100),
  })
  .strict();
export type LimitsSection = z.infer<typeof LimitsSectionSchema>;

export const UsageSectionSchema = z
  .object({
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
  })
  .strict();
export type UsageSection = z.infer<typeof UsageSectionSchema>;

/** USD per million tokens; at most 9 decimals because spend is summed in nano-dollars. */
const priceSchema = z
  .number()
  .nonnegative()
  .max(1_000_000)
  .superRefine((value, context) => {
    const parsed = numberToNano(value);
    if (!parsed.ok) {
      context.addIssue({ code: z.ZodIssueCode.custom, message: parsed.message });
    }
  });

export const PricingSchema = z
  .object({
    input_per_million: priceSchema,
    output_per_million: priceSchema,
  })
  .strict();
export type Pricing = z.infer<typeof PricingSchema>;

export const ModelSchema = z
  .object({
    id: z.string().regex(/^\S+$/, 'must be non-empty and contain no spaces'),
    provider: z.string().min(1),
    upstream_model: z.string().min(1).optional(),
    owned_by: z.string().min(1).optional(),
    capabilities: z.array(CapabilitySchema).min(1),
    context_window: positiveInteger,
    max_output_tokens: positiveInteger.optional(),
    pricing: PricingSchema,
    fallbacks: z.array(z.string().min(1)).optional(),
    dimensions: z.array(positiveInteger).min(1).optional(),
  })
  .strict();
export type ModelEntry = z.infer<typeof ModelSchema>;

export const ConfigFileSchema = z
  .object({
    server: ServerSectionSchema.default({}),
    upstream: UpstreamSectionSchema.default({}),
    providers: z.record(ProviderNameSchema, ProviderSchema),
    limits: LimitsSectionSchema.default({}),
    usage: UsageSectionSchema.default({}),
    models: z.array(ModelSchema).min(1),
  })
  .strict()
  .superRefine((file, context) => {
    for (const problem of findCatalogueProblems(file)) {
      context.addIssue({ code: z.ZodIssueCode.custom, path: problem.path, message: problem.message });
    }
  });
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

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
          problems.push({ path, message: `"${fallback}" is ${describeKind(fallbackKind)}; ${describeKind(kind)} can only fall back to ${kind} models` });
        }
      }
      seen.add(fallback);
    });
  });
  return problems;
}
