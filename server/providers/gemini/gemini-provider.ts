import { abortWhenAbandoned } from '../chat-stream';
import type { ProviderAdapter, ProviderFactoryOptions } from '../types';
import { abortFollowing } from '../call-signal';
import { badResponse } from '../upstream-errors';
import { buildGeminiRequest } from './build-gemini-request';
import { createGeminiEmbeddings } from './gemini-embeddings';
import { GeminiGenerateContentResponseSchema } from './gemini-schemas';
import { translateGeminiStream } from './gemini-stream';
import { createGeminiTransport, type GeminiTransport } from './gemini-transport';
import { mapGenerateContentResponse, type ReplyContext } from './map-gemini-response';

/**
 * The Gemini API adapter (https://ai.google.dev/api): chat through `generateContent` /
 * `streamGenerateContent?alt=sse`, embeddings through `embedContent` / `batchEmbedContents`.
 * Request and reply translation live in the files beside this one; where requests go and how
 * they are authenticated is the transport's (gemini-transport.ts), so that the same adapter
 * serves Gemini on Vertex AI.
 */
export function createGeminiProvider(options: ProviderFactoryOptions): ProviderAdapter {
  const transport = createGeminiTransport({
    provider: options.name,
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    http: options.http,
    now: options.now,
  });
  return createGeminiAdapter({
    name: options.name,
    type: 'gemini',
    transport,
    now: options.now,
    generateId: options.generateId,
    embeddings: (request, target, call) => createGeminiEmbeddings(transport, options.name, request, target, call),
  });
}

export interface GeminiAdapterOptions {
  /** Provider name from the config, used in messages. */
  name: string;
  /** The adapter's `type` (the config type of the provider). */
  type: string;
  transport: GeminiTransport;
  now: () => number;
  generateId: () => string;
  /** Embeddings differ by host (the Gemini API's embedContent, Vertex AI's predict). */
  embeddings: ProviderAdapter['embeddings'];
}

export function createGeminiAdapter(options: GeminiAdapterOptions): ProviderAdapter {
  const provider = options.name;
  const { transport } = options;

  const replyContext = (model: string): ReplyContext => ({
    provider,
    id: `chatcmpl-${options.generateId()}`,
    created: Math.floor(options.now() / 1000),
    model,
    generateId: options.generateId,
  });

  return {
    type: options.type,
    // generationConfig.candidateCount (build-gemini-request.ts), on the Gemini API and on Vertex AI alike.
    supportsN: true,

    async chat(request, target, call) {
      const body = buildGeminiRequest(request, call.reasoning);
      const reply = await transport.postJson(target.upstreamModel, 'generateContent', body, call, GeminiGenerateContentResponseSchema);
      return mapGenerateContentResponse(reply, replyContext(target.id));
    },

    async chatStream(request, target, call) {
      const body = buildGeminiRequest(request, call.reasoning);
      // Our own abort, so that a consumer that stops early also stops the upstream generation.
      const release = abortFollowing(call.signal);
      const response = await transport.post(target.upstreamModel, 'streamGenerateContent?alt=sse', body, {
        signal: release.signal,
        traceHeaders: call.traceHeaders,
      });
      const contentType = response.headers['content-type'];
      const type = (Array.isArray(contentType) ? contentType[0] : contentType) ?? null;
      if (type !== null && !type.toLowerCase().includes('text/event-stream')) {
        // Refused before any chunk (a proxy's HTML page with a 200), so the caller can still retry or fall back.
        await response.discard();
        throw badResponse(provider, `a "${type}" body where an event stream was expected`);
      }
      const chunks = translateGeminiStream(response.body, Object.assign(replyContext(target.id), { secret: transport.secret() }));
      return { chunks: abortWhenAbandoned(chunks, release) };
    },

    embeddings: options.embeddings,
  };
}

/**
 * openai-node's `finally { if (!done) controller.abort() }`, as an iterator rather than a
 * generator: a generator's `finally` does not run when `return()` comes before the first
 * `next()`, and a consumer that gives up before reading must release the upstream too.
 */
