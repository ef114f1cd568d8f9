import { createAnthropicAdapter } from '../anthropic';
import { createGeminiAdapter } from '../gemini';
import type { ProviderAdapter, ProviderFactoryOptions } from '../types';
import { createGoogleAccessTokens, type GoogleAccessTokens } from './google-access-token';
import { createVertexAnthropicTransport } from './vertex-anthropic-transport';
import { createVertexEmbeddings } from './vertex-embeddings';
import { createVertexGeminiTransport, type VertexTransportOptions } from './vertex-gemini-transport';
import { VertexOptionsSchema, vertexHost, type VertexOptions } from './vertex-options';

/**
 * Google Vertex AI (docs/vertex.md): the publisher's models on
 * `https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}`.
 * `publisher: google` is the Gemini adapter over Vertex's URLs (chat, streams, and text
 * embeddings by `:predict`); `publisher: anthropic` is the Anthropic adapter over
 * `:rawPredict` / `:streamRawPredict`, with /v1/messages passed through. Both authenticate with
 * an access token from Google's auth library, kept and refreshed by it, not fetched per request.
 */
export function createVertexProvider(options: ProviderFactoryOptions): ProviderAdapter {
  const vertex = vertexOptions(options);
  return createVertexAdapter(options, createGoogleAccessTokens({ provider: options.name, credentialsFile: vertex.credentials_file }));
}

/** The adapter with the access tokens given (tests give the auth library an HTTP client of theirs). */
export function createVertexAdapter(options: ProviderFactoryOptions, tokens: GoogleAccessTokens): ProviderAdapter {
  const vertex = vertexOptions(options);
  const transportOptions: VertexTransportOptions = {
    provider: options.name,
    root: options.baseUrl || vertexHost(vertex.region),
    vertex,
    tokens,
    http: options.http,
    now: options.now,
  };
  const common = { name: options.name, type: 'vertex', now: options.now, generateId: options.generateId };

  if (vertex.publisher === 'anthropic') {
    return createAnthropicAdapter({ ...common, transport: createVertexAnthropicTransport(transportOptions) });
  }
  const transport = createVertexGeminiTransport(transportOptions);
  return createGeminiAdapter({
    ...common,
    transport,
    embeddings: (request, target, call) => createVertexEmbeddings(transport, options.name, request, target, call),
  });
}

function vertexOptions(options: ProviderFactoryOptions): VertexOptions {
  const parsed = VertexOptionsSchema.safeParse(options.options ?? {});
  if (!parsed.success) throw new Error(`Provider "${options.name}" (vertex) has invalid options: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}
