/**
 * What a Bedrock model id says about the model. Ids come as foundation-model ids
 * (`anthropic.claude-sonnet-4-5-20250929-v1:0`), cross-region inference profiles with a
 * geography in front (`us.anthropic.…`, `eu.…`, `apac.…`, `global.…`) or ARNs of either
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html).
 */

/** The `provider.model` part of an id: without an ARN's resource prefix and a profile's geography. */
export function baseModelId(modelId: string): string {
  const resource = modelId.startsWith('arn:') ? modelId.slice(modelId.lastIndexOf('/') + 1) : modelId;
  const dot = resource.indexOf('.');
  // `us.anthropic.claude…` -> `anthropic.claude…`.
  return dot !== -1 && GEOGRAPHIES.has(resource.slice(0, dot)) ? resource.slice(dot + 1) : resource;
}

const GEOGRAPHIES: ReadonlySet<string> = new Set(['us', 'eu', 'apac', 'jp', 'au', 'ca', 'us-gov', 'global']);

/** Claude: serves the Anthropic Messages body through InvokeModel, takes `thinking`. */
export function isAnthropicModel(modelId: string): boolean {
  return baseModelId(modelId).startsWith('anthropic.');
}

/** The request body family of an embedding model, or null for a model the adapter cannot embed with. */
export function embeddingFamily(modelId: string): 'titan' | 'cohere' | null {
  const base = baseModelId(modelId);
  if (base.startsWith('amazon.titan-embed-text')) return 'titan';
  if (base.startsWith('cohere.embed')) return 'cohere';
  return null;
}
