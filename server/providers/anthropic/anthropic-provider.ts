import type { ChatCompletionChunk, ChatCompletionRequest } from '../../../contract';
import { invalidRequest } from '../../errors/gateway-error';
import { parseSse } from '../../streaming/parse-sse';
import { readErrorText } from '../http-client';
import { toAbortSignal, type CallSignal } from '../call-signal';
import type { ChatStream, HttpResponse, ModelTarget, ProviderAdapter, ProviderFactoryOptions } from '../types';
import { badResponse, parseJson, parseRetryAfterMs } from '../upstream-errors';
import { anthropicStatusError } from './anthropic-error';
import { AnthropicMessageSchema } from './anthropic-schemas';
import { createNativeMessages } from './anthropic-native-messages';
import { translateAnthropicStream } from './anthropic-stream';
import { buildAnthropicRequest } from './build-anthropic-request';
import { mapAnthropicResponse, type ReplyContext } from './map-anthropic-response';

/**
 * The Anthropic Messages API adapter: POST `${baseUrl}/v1/messages`
 * (https://platform.claude.com/docs/en/api/messages), authenticated with `x-api-key` and
 * pinned to `anthropic-version: 2023-06-01` (https://platform.claude.com/docs/en/api/versioning).
 * Translation lives in the files beside this one.
 */
export const ANTHROPIC_VERSION = '2023-06-01';

export function createAnthropicProvider(options: ProviderFactoryOptions): ProviderAdapter {
  const provider = options.name;
  const root = options.baseUrl.endsWith('/') ? options.baseUrl.slice(0, -1) : options.baseUrl;
  const url = `${root}/v1/messages`;

  async function post(body: unknown, signal: CallSignal, accept: string): Promise<HttpResponse> {
    const response = await options.http.request({
      url,
      method: 'POST',
      headers: {
        'x-api-key': options.apiKey,
        'anthropic-version': ANTHROPIC_VERSION,
        'content-type': 'application/json',
        accept,
      },
      body: JSON.stringify(body),
      signal,
      // A JSON reply is read whole; an event stream is not.
      buffered: accept === 'application/json',
    });
    if (response.status >= 200 && response.status < 300) return response;
    const text = await readErrorText(response);
    throw anthropicStatusError(provider, response.status, text, options.apiKey, parseRetryAfterMs(response.headers, options.now()));
  }

  const replyContext = (target: ModelTarget, prefill: string | null): ReplyContext => ({
    provider,
    id: `chatcmpl-${options.generateId()}`,
    created: Math.floor(options.now() / 1000),
    model: target.id,
    prefill,
  });

  return {
    type: 'anthropic',

    async chat(request: ChatCompletionRequest, target, call) {
      const { body, prefill } = buildAnthropicRequest(request, target, false, call.reasoning);
      const response = await post(body, call.signal, 'application/json');
      const json = parseJson(await response.text());
      if (!json.ok) throw badResponse(provider, 'a body that is not JSON');
      const parsed = AnthropicMessageSchema.safeParse(json.value);
      if (!parsed.success) throw badResponse(provider, 'a reply of an unexpected shape');
      return mapAnthropicResponse(parsed.data, replyContext(target, prefill));
    },

    async chatStream(request: ChatCompletionRequest, target, call) {
      const { body, prefill } = buildAnthropicRequest(request, target, true, call.reasoning);
      // Our own abort, so that a consumer that stops early also stops the upstream generation.
      const release = new AbortController();
      const response = await post(body, AbortSignal.any([toAbortSignal(call.signal), release.signal]), 'text/event-stream');
      const contentType = headerValue(response.headers['content-type']);
      if (contentType !== null && !contentType.toLowerCase().includes('text/event-stream')) {
        // Refused before any chunk, so the caller can still retry or fall back.
        await response.discard();
        throw badResponse(provider, `a "${contentType}" body where an event stream was expected`);
      }
      const chunks = translateAnthropicStream(parseSse(response.body), {
        ...replyContext(target, prefill),
        apiKey: options.apiKey,
        onUsage: (usage) => {
          stream.usage = usage;
        },
      });
      const stream: ChatStream = { chunks: abortWhenAbandoned(chunks, release) };
      return stream;
    },

    messages: createNativeMessages(options, root, ANTHROPIC_VERSION),

    async embeddings() {
      throw invalidRequest('unsupported_capability', `The provider "${provider}" (Anthropic) has no embeddings API.`, 'model');
    },
  };
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** openai-node's pattern: `finally { if (!done) controller.abort() }`. */
async function* abortWhenAbandoned(
  chunks: AsyncGenerator<ChatCompletionChunk>,
  release: AbortController,
): AsyncGenerator<ChatCompletionChunk> {
  let done = false;
  try {
    yield* chunks;
    done = true;
  } finally {
    if (!done) release.abort();
  }
}
