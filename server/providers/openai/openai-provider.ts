import type { ChatCompletionChunk } from '../../../contract';
import type {
  CallOptions,
  ChatResult,
  ChatStream,
  EmbeddingsResult,
  HttpRequest,
  HttpResponse,
  ProviderAdapter,
  ProviderFactoryOptions,
} from '../types';
import { badResponse, parseJson } from '../upstream-errors';
import { toChatCompletion, toTokenUsage } from './convert-openai-response';
import { isErrorEvent, openAiStatusError, openAiStreamError } from './openai-error';
import { toEmbeddingsResponse } from './openai-embeddings';
import { chatRequest, embeddingsRequest, responsesRequest } from './openai-request';
import { parseOpenAiChatCompletion, parseOpenAiEmbeddings } from './openai-guards';
import { completionToChunks, openAiChunkBatches } from './openai-stream';
import { batchedChatStream } from '../chat-stream';
import { withTraceHeaders } from '../trace-headers';

/**
 * The `openai` provider type: OpenAI and every server that speaks its Chat Completions and
 * Embeddings wire format (DeepSeek, Mistral, Groq, vLLM, Ollama, Qwen compatible mode, …).
 * `baseUrl` includes the version path, e.g. https://api.openai.com/v1.
 */
export function createOpenAiProvider(options: ProviderFactoryOptions): ProviderAdapter {
  const { name, apiKey, http } = options;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const ids = { now: options.now, generateId: options.generateId };

  /** Sends the request and returns the response only when it is a 2xx; otherwise throws the mapped error. */
  async function send(request: HttpRequest, callOptions: CallOptions): Promise<HttpResponse> {
    const response = await http.request(withTraceHeaders(request, callOptions.traceHeaders));
    if (response.status >= 200 && response.status < 300) return response;
    throw await openAiStatusError(response, name, apiKey, options.now());
  }

  async function readJson(response: HttpResponse): Promise<unknown> {
    const json = parseJson(await response.text());
    if (!json.ok) throw badResponse(name, 'a body that is not JSON');
    return json.value;
  }

  return {
    type: 'openai',
    supportsN: true,

    async chat(request, target, callOptions): Promise<ChatResult> {
      const response = await send(
        chatRequest(baseUrl, apiKey, request, target, false, callOptions.signal, callOptions.reasoning),
        callOptions,
      );
      const body = await readJson(response);
      const parsed = parseOpenAiChatCompletion(body);
      if (!parsed.success) {
        // Some servers answer a failure with 200 and an error envelope.
        if (isErrorEvent(body)) throw openAiStreamError(body, name, apiKey);
        throw badResponse(name, 'a body that is not a chat completion');
      }
      return toChatCompletion(parsed.data, target, ids);
    },

    async chatStream(request, target, callOptions): Promise<ChatStream> {
      const response = await send(
        chatRequest(baseUrl, apiKey, request, target, true, callOptions.signal, callOptions.reasoning),
        callOptions,
      );
      if (isOtherContent(response)) {
        // A proxy's HTML page or similar: fail before the reply starts, so it is retried
        // or falls back instead of reaching the client as a 200 with an error event.
        await response.discard();
        throw badResponse(name, 'a body that is not an event stream');
      }
      if (!isJsonResponse(response)) {
        return batchedChatStream(openAiChunkBatches(response, { provider: name, apiKey, target, ids }));
      }
      // A server that ignored `stream: true` (or failed with a 200 JSON error): still a valid answer.
      const body = await readJson(response);
      if (isErrorEvent(body)) throw openAiStreamError(body, name, apiKey);
      const parsed = parseOpenAiChatCompletion(body);
      if (!parsed.success) throw badResponse(name, 'a body that is neither a stream nor a chat completion');
      const { completion, usage } = toChatCompletion(parsed.data, target, ids);
      return { chunks: iterate(completionToChunks(completion, usage)) };
    },

    async embeddings(request, target, callOptions): Promise<EmbeddingsResult> {
      const response = await send(embeddingsRequest(baseUrl, apiKey, request, target, callOptions.signal), callOptions);
      const parsed = parseOpenAiEmbeddings(await readJson(response));
      if (!parsed.success) throw badResponse(name, 'a body that is not an embeddings list');
      const inputs = typeof request.input === 'string' ? 1 : request.input.length;
      const result = toEmbeddingsResponse(parsed.data, target, inputs, request.encoding_format === 'base64');
      if (!result) throw badResponse(name, `embeddings that do not match the ${inputs} input(s)`);
      return { response: result, usage: toTokenUsage(parsed.data.usage) };
    },

    async responses(body, target, callOptions): Promise<HttpResponse> {
      const response = await send(responsesRequest(baseUrl, apiKey, body, target, callOptions.stream, callOptions.signal), callOptions);
      // A proxy's HTML page or similar fails here, before the reply starts (retried or falls back).
      const expected = callOptions.stream ? !isOtherContent(response) : isJsonResponse(response);
      if (!expected) {
        await response.discard();
        throw badResponse(name, callOptions.stream ? 'a body that is not an event stream' : 'a body that is not JSON');
      }
      return response;
    },
  };
}

function isJsonResponse(response: HttpResponse): boolean {
  const type = response.headers['content-type'];
  const value = Array.isArray(type) ? type[0] : type;
  return value?.toLowerCase().includes('application/json') ?? false;
}

/** A declared content type that is neither an event stream nor JSON (none at all is tolerated). */
function isOtherContent(response: HttpResponse): boolean {
  const type = response.headers['content-type'];
  const value = (Array.isArray(type) ? type[0] : type)?.toLowerCase();
  return value !== undefined && value !== '' && !value.includes('text/event-stream') && !value.includes('application/json');
}

async function* iterate(chunks: Iterable<ChatCompletionChunk>): AsyncGenerator<ChatCompletionChunk> {
  yield* chunks;
}
