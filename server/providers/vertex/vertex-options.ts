import { z } from 'zod';

/**
 * The `options` of a `vertex` provider (docs/vertex.md). One provider serves one publisher's
 * models: `google` (Gemini, text embeddings) or `anthropic` (Claude), since the publisher
 * decides the wire format and whether /v1/messages passes through natively.
 */
export const VertexOptionsSchema = z
  .object({
    /** The Google Cloud project id the models are called in. */
    project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, 'must be a Google Cloud project id, e.g. my-project-123'),
    /** A Vertex AI location (us-central1, europe-west4, …) or `global`. */
    region: z.string().regex(/^(global|[a-z]+-[a-z]+\d+)$/, 'must be a Vertex AI location, e.g. us-east5 or global'),
    publisher: z.enum(['google', 'anthropic']).default('google'),
    /**
     * A service-account key file; absent: Application Default Credentials
     * (GOOGLE_APPLICATION_CREDENTIALS, workload identity, the metadata server).
     */
    credentials_file: z.string().min(1).optional(),
  })
  .strict();

export type VertexOptions = z.output<typeof VertexOptionsSchema>;

/** The host of a location: `global` has no regional prefix (https://cloud.google.com/vertex-ai/docs/reference/rest#service-endpoint). */
export function vertexHost(region: string): string {
  return region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
}

/**
 * `{root}/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}`,
 * where `root` is the configured `base_url` or the location's host.
 */
export function vertexModelUrl(root: string, options: VertexOptions, model: string, method: string): string {
  const base = root.endsWith('/') ? root.slice(0, -1) : root;
  const path = `/v1/projects/${encodeURIComponent(options.project)}/locations/${encodeURIComponent(options.region)}`;
  // `@` separates a Claude model from its version (claude-sonnet-4@20250514) and stays as it is.
  return `${base}${path}/publishers/${options.publisher}/models/${encodeURIComponent(model).replaceAll('%40', '@')}:${method}`;
}
