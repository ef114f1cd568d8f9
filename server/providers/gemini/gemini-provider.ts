import type { ChatCompletionChunk } from '../../../contract';
import type { ProviderAdapter, ProviderFactoryOptions } from '../types';
import { toAbortSignal } from '../call-signal';
import { badResponse } from '../upstream-errors';
import { buildGeminiRequest } from './build-gemini-request';
import { createGeminiEmbeddings } from './gemini-embeddings';
import { GeminiGenerateContentResponseSchema } from './gemini-schemas';
import { translateGeminiStream } from './gemini-stream';
import { createGeminiTransport } from './gemini-transport';
import { mapGenerateContentResponse, type ReplyContext } from './map-gemini-response';

/**
 * The Gemini API adapter (https://ai.google.dev/api): chat through `generateContent` /
 * `streamGenerateContent?alt=sse`, embeddings through `embedContent` / `batchEmbedContents`.
 * Request and reply translation live in the files beside this one.
 */
export function createGeminiProvider(options: ProviderFactoryOptions): ProviderAdapter {
  const provider = options.name;
  const transport = createGeminiTransport({
    provider,
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    http: options.http,
    now: options.now,
  });

  const replyContext = (model: string): ReplyContext => ({
    provider,
    id: `chatcmpl-${options.generateId()}`,
    created: Math.floor(options.now() / 1000),
    model,
    generateId: options.generateId,
  });

  return {
    type: 'gemini',

    async chat(request, target, call) {
      const body = buildGeminiRequest(request, call.reasoning);
      const reply = await transport.postJson(
        target.upstreamModel,
        'generateContent',
        body,
        call.signal,
        GeminiGenerateContentResponseSchema,
      );
      return mapGenerateContentResponse(reply, replyContext(target.id));
    },

    async chatStream(request, target, call) {
      const body = buildGeminiRequest(request, call.reasoning);
      // Our own abort, so that a consumer that stops early also stops the upstream generation.
      const release = new AbortController();
      const response = await transport.post(
        target.upstreamModel,
        'streamGenerateContent?alt=sse',
        body,
        AbortSignal.any([toAbortSignal(call.signal), release.signal]),
      );
      const contentType = response.headers['content-type'];
      const type = (Array.isArray(contentType) ? contentType[0] : contentType) ?? null;
      if (type !== null && !type.toLowerCase().includes('text/event-stream')) {
        // Refused before any chunk (a proxy's HTML page with a 200), so the caller can still retry or fall back.
        await response.discard();
        throw badResponse(provider, `a "${type}" body where an event stream was expected`);
      }
      const chunks = translateGeminiStream(response.body, Object.assign(replyContext(target.id), { secret: options.apiKey }));
      return { chunks: abortWhenAbandoned(chunks, release) };
    },

    embeddings(request, target, call) {
      return createGeminiEmbeddings(transport, provider, request, target, call);
    },
  };
}

/**
 * openai-node's `finally { if (!done) controller.abort() }`, as an iterator rather than a
 * generator: a generator's `finally` does not run when `return()` comes before the first
 * `next()`, and a consumer that gives up before reading must release the upstream too.
 */
function abortWhenAbandoned(chunks: AsyncGenerator<ChatCompletionChunk>, release: AbortController): AsyncIterable<ChatCompletionChunk> {
  let done = false;
  const settle = (): void => {
    if (!done) release.abort();
    done = true;
  };
  return {
    [Symbol.asyncIterator]: () => ({
      async next() {
        try {
          const result = await chunks.next();
          if (result.done) done = true;
          return result;
        } catch (error) {
          settle();
          throw error;
        }
      },
      async return() {
        settle();
        await chunks.return(undefined);
        return { done: true, value: undefined };
      },
    }),
  };
}
