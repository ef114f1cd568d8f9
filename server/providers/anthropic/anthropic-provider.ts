import { abortWhenAbandoned } from '../chat-stream';
import type { ChatCompletionRequest } from '../../../contract';
import { invalidRequest } from '../../errors/gateway-error';
import { parseSse } from '../../streaming/parse-sse';
import { abortFollowing, type CallSignal } from '../call-signal';
import type { CallOptions, ChatStream, HttpResponse, ModelTarget, ProviderAdapter, ProviderFactoryOptions } from '../types';
import { badResponse, parseJson } from '../upstream-errors';
import { AnthropicMessageSchema, type AnthropicMessagesRequest } from './anthropic-schemas';
import { createNativeMessages } from './anthropic-native-messages';
import { translateAnthropicStream } from './anthropic-stream';
import { buildAnthropicRequest } from './build-anthropic-request';
import { createAnthropicApiTransport, type AnthropicTransport } from './anthropic-transport';
import { mapAnthropicResponse, type ReplyContext } from './map-anthropic-response';

/**
 * The Anthropic Messages API adapter (https://platform.claude.com/docs/en/api/messages):
 * OpenAI-shaped chat translated to Messages and back, and /v1/messages passed through. Where
 * the requests go and how they are authenticated is the transport's (anthropic-transport.ts),
 * so that the same adapter serves Claude on other hosts (Vertex AI). Translation lives in the
 * files beside this one.
 */
export interface AnthropicAdapterOptions {
  /** Provider name from the config, used in messages. */
  name: string;
  /** The adapter's `type` (the config type of the provider). */
  type: string;
  transport: AnthropicTransport;
  now: () => number;
  generateId: () => string;
}

export function createAnthropicProvider(options: ProviderFactoryOptions): ProviderAdapter {
  return createAnthropicAdapter({
    name: options.name,
    type: 'anthropic',
    transport: createAnthropicApiTransport({
      provider: options.name,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      http: options.http,
      now: options.now,
    }),
    now: options.now,
    generateId: options.generateId,
  });
}

export function createAnthropicAdapter(options: AnthropicAdapterOptions): ProviderAdapter {
  const provider = options.name;
  const { transport } = options;

  function post(body: AnthropicMessagesRequest, signal: CallSignal, stream: boolean, call: CallOptions): Promise<HttpResponse> {
    const { traceHeaders } = call;
    return transport.send({
      kind: 'messages',
      body: { ...body },
      stream,
      anthropicVersion: null,
      anthropicBeta: null,
      signal,
      traceHeaders,
    });
  }

  const replyContext = (target: ModelTarget, prefill: string | null): ReplyContext => ({
    provider,
    id: `chatcmpl-${options.generateId()}`,
    created: Math.floor(options.now() / 1000),
    model: target.id,
    prefill,
  });

  return {
    type: options.type,

    async chat(request: ChatCompletionRequest, target, call) {
      const { body, prefill } = buildAnthropicRequest(request, target, false, call.reasoning);
      const response = await post(body, call.signal, false, call);
      const json = parseJson(await response.text());
      if (!json.ok) throw badResponse(provider, 'a body that is not JSON');
      const parsed = AnthropicMessageSchema.safeParse(json.value);
      if (!parsed.success) throw badResponse(provider, 'a reply of an unexpected shape');
      return mapAnthropicResponse(parsed.data, replyContext(target, prefill));
    },

    async chatStream(request: ChatCompletionRequest, target, call) {
      const { body, prefill } = buildAnthropicRequest(request, target, true, call.reasoning);
      // Our own abort, so that a consumer that stops early also stops the upstream generation.
      const release = abortFollowing(call.signal);
      const response = await post(body, release.signal, true, call);
      const contentType = headerValue(response.headers['content-type']);
      if (contentType !== null && !contentType.toLowerCase().includes('text/event-stream')) {
        // Refused before any chunk, so the caller can still retry or fall back.
        await response.discard();
        throw badResponse(provider, `a "${contentType}" body where an event stream was expected`);
      }
      const chunks = translateAnthropicStream(parseSse(response.body), {
        ...replyContext(target, prefill),
        apiKey: transport.secret(),
        onUsage: (usage) => {
          stream.usage = usage;
        },
      });
      const stream: ChatStream = { chunks: abortWhenAbandoned(chunks, release) };
      return stream;
    },

    messages: createNativeMessages(provider, transport),

    async embeddings() {
      throw invalidRequest('unsupported_capability', `The provider "${provider}" (Anthropic) has no embeddings API.`, 'model');
    },
  };
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
