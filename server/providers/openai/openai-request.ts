import type { ChatCompletionRequest, EmbeddingsRequest } from '../../../contract';
import type { CallSignal } from '../call-signal';
import type { HttpRequest, ModelTarget, ReasoningRequest } from '../types';

/**
 * The outbound requests. The client's fields are passed through as they came (the contract
 * keeps unknown ones for the upstream), with `model` set to the provider's name for the model.
 */

/** The client's stream fields: the gateway sets them itself (below), for streams only. */
const STREAM_FIELDS = ['stream', 'stream_options'] as const;

export function chatRequest(
  baseUrl: string,
  apiKey: string,
  request: ChatCompletionRequest,
  target: ModelTarget,
  stream: boolean,
  signal: CallSignal,
  reasoning?: ReasoningRequest,
): HttpRequest {
  // `stream` and `stream_options` are set below, for a stream only.
  const body = withoutNulls(request, STREAM_FIELDS);
  body.model = target.upstreamModel;
  // The route's reasoning (docs/chat-and-streaming.md, "Reasoning"), unless the client set the field itself.
  if (reasoning?.effort && body.reasoning_effort === undefined) body.reasoning_effort = reasoning.effort;
  const streamOptions = request.stream_options;
  if (stream) {
    body.stream = true;
    // Always asked for, so usage is exact; the route drops the chunk when the client did not ask.
    body.stream_options = Object.assign({}, isRecord(streamOptions) ? streamOptions : null, { include_usage: true });
  }
  return post(`${baseUrl}/chat/completions`, apiKey, body, stream ? 'text/event-stream' : 'application/json', signal, !stream);
}

export function embeddingsRequest(
  baseUrl: string,
  apiKey: string,
  request: EmbeddingsRequest,
  target: ModelTarget,
  signal: CallSignal,
): HttpRequest {
  // base64 when the client asks for it (the SDKs' default), passed through as the upstream
  // sends it; floats otherwise. A server that ignores the field and answers the other way is
  // decoded or encoded by the route (openai-embeddings.ts).
  const body = withoutNulls(request);
  body.model = target.upstreamModel;
  body.encoding_format = request.encoding_format === 'base64' ? 'base64' : 'float';
  return post(`${baseUrl}/embeddings`, apiKey, body, 'application/json', signal, true);
}

/** POST /responses (Responses API pass-through): the client's body as it came, with the upstream's model name. */
export function responsesRequest(
  baseUrl: string,
  apiKey: string,
  body: Record<string, unknown>,
  target: ModelTarget,
  stream: boolean,
  signal: CallSignal,
): HttpRequest {
  return post(
    `${baseUrl}/responses`,
    apiKey,
    { ...body, model: target.upstreamModel },
    stream ? 'text/event-stream' : 'application/json',
    signal,
    !stream,
  );
}

/** `buffered`: a JSON reply, read whole (HttpRequest.buffered); an event stream is not. */
function post(
  url: string,
  apiKey: string,
  body: Record<string, unknown>,
  accept: string,
  signal: CallSignal,
  buffered: boolean,
): HttpRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept };
  // Local servers (Ollama, vLLM without --api-key) take no key; an empty bearer confuses some proxies.
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return { url, method: 'POST', headers, body: JSON.stringify(body), signal, buffered };
}

/**
 * Top-level `null`s mean "not set" in the contract (its fields are nullish); OpenAI accepts
 * them, but several compatible servers reject e.g. `"tools": null`, so they are not sent.
 */
function withoutNulls(request: object, except: readonly string[] = []): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  // The client's fields in their order; one pass, no [key, value] pair per field.
  for (const key of Object.keys(request)) {
    const value = (request as Record<string, unknown>)[key];
    if (value !== null && value !== undefined && !except.includes(key)) result[key] = value;
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
