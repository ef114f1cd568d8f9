import type { Attributes } from '@opentelemetry/api';
import type { DeploymentConfig } from '../config/deployments';
import type { ModelConfig } from '../config/load-config';

/**
 * docs/tracing.md: attribute names and values of the OpenTelemetry GenAI semantic conventions
 * (gen_ai.*) the gateway's spans carry, and its own (gateway.*).
 */

/** `gen_ai.provider.name` of each provider type (the conventions' well-known values). */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
  vertex: 'gcp.vertex_ai',
  bedrock: 'aws.bedrock',
  azure: 'azure.ai.openai',
};

export function providerName(providerType: string): string {
  return PROVIDER_NAMES[providerType] ?? providerType;
}

/**
 * The request parameters a body sets, under their `gen_ai.request.*` names (a route's body,
 * whatever its format), added to `attributes`.
 */
export function requestParameterAttributes(attributes: Attributes, body: unknown, maxTokens: number | null | undefined): void {
  if (typeof maxTokens === 'number' && maxTokens > 0) attributes['gen_ai.request.max_tokens'] = maxTokens;
  if (typeof body !== 'object' || body === null) return;
  const fields = body as Record<string, unknown>;
  for (const [field, name] of NUMBER_PARAMETERS) {
    const value = fields[field];
    if (typeof value === 'number') attributes[name] = value;
  }
  const stop = fields.stop ?? fields.stop_sequences;
  if (typeof stop === 'string') attributes['gen_ai.request.stop_sequences'] = [stop];
  else if (Array.isArray(stop) && stop.every((entry) => typeof entry === 'string')) attributes['gen_ai.request.stop_sequences'] = stop;
  if (typeof fields.n === 'number' && fields.n !== 1) attributes['gen_ai.request.choice.count'] = fields.n;
  if (typeof fields.dimensions === 'number') attributes['gen_ai.embeddings.dimension.count'] = fields.dimensions;
  if (typeof fields.encoding_format === 'string') attributes['gen_ai.request.encoding_formats'] = [fields.encoding_format];
}

const NUMBER_PARAMETERS: readonly (readonly [string, string])[] = [
  ['temperature', 'gen_ai.request.temperature'],
  ['top_p', 'gen_ai.request.top_p'],
  ['top_k', 'gen_ai.request.top_k'],
  ['frequency_penalty', 'gen_ai.request.frequency_penalty'],
  ['presence_penalty', 'gen_ai.request.presence_penalty'],
  ['seed', 'gen_ai.request.seed'],
];

/** What the server span of a model's requests is named and says of the model's operation and provider. */
export interface ModelSpanShape {
  name: string;
  operation: string;
  providerName: string;
}

/** What an attempt's client span is named and carries: the same for every call of that deployment. */
export interface AttemptSpanShape {
  name: string;
  attributes: Attributes;
  /** `attributes` and `gen_ai.response.model`, for an attempt that answered. */
  answered: Attributes;
}

/** An upstream attempt of the retry and fallback loop (completions/resolve-model.ts's Attempt). */
export interface ShapedAttempt {
  model: ModelConfig;
  deployment: DeploymentConfig;
  providerType: string;
}

const operationOf = (model: ModelConfig): string => (model.kind === 'embeddings' ? 'embeddings' : 'chat');

/**
 * docs/tracing.md, "What traces cost": span names and the attempts' attributes, made once per
 * catalogue model and per deployment (the configuration's own objects, kept for the process's
 * life; a deployment serves one model) instead of once per request.
 */
export class AttemptSpanShapes {
  private readonly models = new WeakMap<ModelConfig, Map<string, ModelSpanShape>>();
  private readonly attempts = new WeakMap<DeploymentConfig, AttemptSpanShape>();

  ofModel(model: ModelConfig, providerType: string): ModelSpanShape {
    let byProvider = this.models.get(model);
    if (byProvider === undefined) {
      byProvider = new Map();
      this.models.set(model, byProvider);
    }
    let shape = byProvider.get(providerType);
    if (shape === undefined) {
      const operation = operationOf(model);
      shape = { name: `${operation} ${model.id}`, operation, providerName: providerName(providerType) };
      byProvider.set(providerType, shape);
    }
    return shape;
  }

  ofAttempt(attempt: ShapedAttempt): AttemptSpanShape {
    let shape = this.attempts.get(attempt.deployment);
    if (shape === undefined) {
      const operation = operationOf(attempt.model);
      const { upstreamModel, provider } = attempt.deployment;
      const attributes: Attributes = {
        'gen_ai.operation.name': operation,
        'gen_ai.provider.name': providerName(attempt.providerType),
        'gen_ai.request.model': upstreamModel,
        'gateway.model': attempt.model.id,
        'gateway.deployment': provider,
      };
      shape = { name: `${operation} ${upstreamModel}`, attributes, answered: { ...attributes, 'gen_ai.response.model': upstreamModel } };
      this.attempts.set(attempt.deployment, shape);
    }
    return shape;
  }
}
