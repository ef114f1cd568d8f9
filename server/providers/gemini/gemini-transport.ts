import type { z } from 'zod';
import { readErrorText } from '../transport-errors';
import type { HttpClient, HttpResponse, RequestOptions } from '../types';
import { badResponse, parseJson, parseRetryAfterMs } from '../upstream-errors';
import { geminiStatusError } from './gemini-error';

export interface GeminiTransportOptions {
  provider: string;
  /** Host root, e.g. https://generativelanguage.googleapis.com (docs/configuration.md). */
  baseUrl: string;
  apiKey: string;
  http: HttpClient;
  /** Clock (ms), to read HTTP-date `retry-after` headers. */
  now: () => number;
}

export interface GeminiTransport {
  /** POSTs to `/v1beta/models/<model>:<method>`; resolves on a 2xx, rejects with an UpstreamError otherwise. */
  post(model: string, method: string, body: unknown, call: RequestOptions): Promise<HttpResponse>;
  /** post + the whole body parsed as JSON and checked against `schema`. */
  postJson<T>(model: string, method: string, body: unknown, call: RequestOptions, schema: z.ZodType<T, z.ZodTypeDef, unknown>): Promise<T>;
  /** The credential of the last call, scrubbed from anything passed on; '' when there is none. */
  secret(): string;
}

/**
 * HTTP for the Gemini API (https://ai.google.dev/api#rest-api). The key travels in the
 * `x-goog-api-key` header (https://ai.google.dev/gemini-api/docs/api-key), never as `?key=`:
 * URLs end up in logs and error messages.
 */
export function createGeminiTransport(options: GeminiTransportOptions): GeminiTransport {
  const root = options.baseUrl.endsWith('/') ? options.baseUrl.slice(0, -1) : options.baseUrl;
  const headers = { 'content-type': 'application/json', 'x-goog-api-key': options.apiKey };

  async function post(model: string, method: string, body: unknown, call: RequestOptions, buffered = false): Promise<HttpResponse> {
    const response = await options.http.request({
      url: modelUrl(root, model, method),
      method: 'POST',
      headers: call.traceHeaders ? { ...headers, ...call.traceHeaders } : headers,
      body: JSON.stringify(body),
      signal: call.signal,
      buffered,
    });
    if (response.status >= 200 && response.status < 300) return response;
    const text = await readErrorText(response);
    throw geminiStatusError(options.provider, response.status, text, options.apiKey, parseRetryAfterMs(response.headers, options.now()));
  }

  return {
    post,
    postJson: (model, method, body, call, schema) => postJson(options.provider, post, model, method, body, call, schema),
    secret: () => options.apiKey,
  };
}

/** `post` with the buffered body parsed as JSON and checked against `schema`; shared by every Gemini transport. */
export async function postJson<T>(
  provider: string,
  post: (model: string, method: string, body: unknown, call: RequestOptions, buffered: boolean) => Promise<HttpResponse>,
  model: string,
  method: string,
  body: unknown,
  call: RequestOptions,
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
): Promise<T> {
  const response = await post(model, method, body, call, true);
  const json = parseJson(await response.text());
  if (!json.ok) throw badResponse(provider, 'a body that is not JSON');
  const parsed = schema.safeParse(json.value);
  if (!parsed.success) throw badResponse(provider, 'a reply of an unexpected shape');
  return parsed.data;
}

/** `method` may carry a query (`streamGenerateContent?alt=sse`). */
function modelUrl(root: string, model: string, method: string): string {
  return `${root}/v1beta/models/${encodeURIComponent(geminiModelName(model))}:${method}`;
}

/** The bare model name: the catalogue may name it as Google lists it ("models/gemini-…"). */
export function geminiModelName(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}
