import { readErrorText } from '../transport-errors';
import { geminiStatusError } from '../gemini/gemini-error';
import { geminiModelName, postJson, type GeminiTransport } from '../gemini/gemini-transport';
import type { HttpClient, HttpResponse, RequestOptions } from '../types';
import { parseRetryAfterMs } from '../upstream-errors';
import type { GoogleAccessTokens } from './google-access-token';
import { vertexModelUrl, type VertexOptions } from './vertex-options';

export interface VertexTransportOptions {
  provider: string;
  /** `base_url`, or the location's host (vertexHost). */
  root: string;
  vertex: VertexOptions;
  tokens: GoogleAccessTokens;
  http: HttpClient;
  now: () => number;
}

/**
 * Gemini on Vertex AI: the Gemini API's methods on the publisher model's resource
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference),
 * authenticated with an OAuth access token. Errors are Google's `{error: {code, message,
 * status}}`, as on the Gemini API.
 */
export function createVertexGeminiTransport(options: VertexTransportOptions): GeminiTransport {
  async function post(model: string, method: string, body: unknown, call: RequestOptions, buffered = false): Promise<HttpResponse> {
    const token = await options.tokens.token(call.signal);
    const response = await options.http.request({
      url: vertexModelUrl(options.root, options.vertex, geminiModelName(model), method),
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...call.traceHeaders },
      body: JSON.stringify(body),
      signal: call.signal,
      buffered,
    });
    if (response.status >= 200 && response.status < 300) return response;
    const text = await readErrorText(response);
    throw geminiStatusError(options.provider, response.status, text, token, parseRetryAfterMs(response.headers, options.now()));
  }
  return {
    post,
    postJson: (model, method, body, call, schema) => postJson(options.provider, post, model, method, body, call, schema),
    secret: () => options.tokens.current(),
  };
}
