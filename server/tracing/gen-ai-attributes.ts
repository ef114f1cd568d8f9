import type { Attributes } from '@opentelemetry/api';

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

/** The request parameters a body sets, under their `gen_ai.request.*` names (a route's body, whatever its format). */
export function requestParameterAttributes(body: unknown, maxTokens: number | null | undefined): Attributes {
  const attributes: Attributes = {};
  if (typeof maxTokens === 'number' && maxTokens > 0) attributes['gen_ai.request.max_tokens'] = maxTokens;
  if (typeof body !== 'object' || body === null) return attributes;
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
  return attributes;
}

const NUMBER_PARAMETERS: readonly (readonly [string, string])[] = [
  ['temperature', 'gen_ai.request.temperature'],
  ['top_p', 'gen_ai.request.top_p'],
  ['top_k', 'gen_ai.request.top_k'],
  ['frequency_penalty', 'gen_ai.request.frequency_penalty'],
  ['presence_penalty', 'gen_ai.request.presence_penalty'],
  ['seed', 'gen_ai.request.seed'],
];
