import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { ChatCompletionRequest } from '../../../contract';
import { batchedChatStream } from '../chat-stream';
import type { ModelTarget, ProviderAdapter, ProviderFactoryOptions } from '../types';
import { createBedrockAuth } from './bedrock-auth';
import { createBedrockEmbeddings } from './bedrock-embeddings';
import { createBedrockNativeMessages } from './bedrock-native-messages';
import { bedrockEndpoint, parseBedrockOptions } from './bedrock-options';
import { ConverseResponseSchema } from './bedrock-schemas';
import { createBedrockTransport } from './bedrock-transport';
import { buildConverseRequest } from './build-converse-request';
import { converseChunkBatches } from './converse-stream';
import { mapConverseResponse, type ReplyContext } from './map-converse-response';

/**
 * The Amazon Bedrock adapter (docs/bedrock.md): chat through Converse and ConverseStream
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference.html),
 * embeddings and Claude's Messages pass-through through InvokeModel, over the gateway's own
 * pooled HTTP client, each request signed with Signature V4 or carrying a Bedrock API key
 * (bedrock-auth.ts). AWS's SDK client is not used for the calls: it would bring its own HTTP
 * stack, retries and timeouts beside the gateway's, which are the ones the operator configures.
 */
export interface BedrockDependencies {
  /** Replaces AWS's default credential chain (tests: a provider with an expiry). */
  credentials?: AwsCredentialIdentityProvider;
}

export function createBedrockProvider(options: ProviderFactoryOptions, dependencies: BedrockDependencies = {}): ProviderAdapter {
  const provider = options.name;
  const settings = parseBedrockOptions(provider, options.options);
  const auth = createBedrockAuth({
    provider,
    region: settings.region,
    apiKey: options.apiKey,
    profile: settings.profile,
    credentials: dependencies.credentials,
    now: options.now,
  });
  const transport = createBedrockTransport({
    provider,
    root: options.baseUrl === '' ? bedrockEndpoint(settings.region) : options.baseUrl,
    http: options.http,
    auth,
    apiKey: options.apiKey,
    now: options.now,
  });
  const replyContext = (target: ModelTarget): ReplyContext => ({
    provider,
    id: `chatcmpl-${options.generateId()}`,
    created: Math.floor(options.now() / 1000),
    model: target.id,
  });

  return {
    type: 'bedrock',

    async chat(request: ChatCompletionRequest, target, call) {
      const body = buildConverseRequest(request, target, call.reasoning);
      const { value } = await transport.postJson(target.upstreamModel, 'converse', body, call, ConverseResponseSchema);
      return mapConverseResponse(value, replyContext(target));
    },

    async chatStream(request: ChatCompletionRequest, target, call) {
      const body = buildConverseRequest(request, target, call.reasoning);
      const response = await transport.post(target.upstreamModel, 'converse-stream', body, call);
      const stream = batchedChatStream(
        // Written out: a spread followed by more properties costs more (docs/performance.md).
        converseChunkBatches(response, {
          provider,
          id: `chatcmpl-${options.generateId()}`,
          object: 'chat.completion.chunk',
          created: Math.floor(options.now() / 1000),
          model: target.id,
          apiKey: options.apiKey,
          onUsage: (usage) => {
            stream.usage = usage;
          },
        }),
      );
      return stream;
    },

    embeddings: (request, target, call) => createBedrockEmbeddings(transport, provider, request, target, call),

    messages: createBedrockNativeMessages(transport, provider, options.apiKey),
  };
}
