import type { z } from 'zod';
import { readErrorText } from '../transport-errors';
import type { HttpClient, HttpResponse, RequestOptions } from '../types';
import { badResponse, parseJson, parseRetryAfterMs } from '../upstream-errors';
import type { BedrockAuth } from './bedrock-auth';
import { bedrockStatusError } from './bedrock-error';

/**
 * HTTP for the Bedrock Runtime API over the gateway's own pooled client (its timeouts,
 * retries and aborts apply as for every provider), each request signed or given its bearer
 * key by bedrock-auth.ts. https://docs.aws.amazon.com/bedrock/latest/APIReference/API_Operations_Amazon_Bedrock_Runtime.html
 */
export type BedrockAction = 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream' | 'count-tokens';

export const EVENT_STREAM_TYPE = 'application/vnd.amazon.eventstream';

export interface BedrockTransportOptions {
  provider: string;
  /** Host root: the region's endpoint or the configured `base_url`. */
  root: string;
  http: HttpClient;
  auth: BedrockAuth;
  /** The bearer key, scrubbed from error messages; empty with Signature V4. */
  apiKey: string;
  now: () => number;
}

export interface BedrockTransport {
  /** POST `/model/<model>/<action>`; resolves with a 2xx reply, unread, rejects with an UpstreamError otherwise. */
  post(model: string, action: BedrockAction, body: unknown, call: RequestOptions): Promise<HttpResponse>;
  /** post + the whole reply parsed as JSON and checked against `schema`. */
  postJson<T>(
    model: string,
    action: BedrockAction,
    body: unknown,
    call: RequestOptions,
    schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  ): Promise<{ value: T; response: HttpResponse }>;
}

export function createBedrockTransport(options: BedrockTransportOptions): BedrockTransport {
  const root = options.root.endsWith('/') ? options.root.slice(0, -1) : options.root;

  async function post(model: string, action: BedrockAction, body: unknown, call: RequestOptions): Promise<HttpResponse> {
    const streamed = action === 'converse-stream' || action === 'invoke-with-response-stream';
    // The model id may be an ARN or carry a version (`…-v2:0`): one path segment, escaped.
    const url = new URL(`${root}/model/${encodeURIComponent(model)}/${action}`);
    const text = JSON.stringify(body);
    const headers = await options.auth({
      url,
      headers: { 'content-type': 'application/json', accept: streamed ? EVENT_STREAM_TYPE : 'application/json' },
      body: text,
    });
    // docs/tracing.md: the trace headers are not signed (SigV4 signs the headers it is given).
    const sent = call.traceHeaders ? { ...headers, ...call.traceHeaders } : headers;
    const response = await options.http.request({
      url: url.href,
      method: 'POST',
      headers: sent,
      body: text,
      signal: call.signal,
      buffered: !streamed,
    });
    if (response.status >= 200 && response.status < 300) {
      const contentType = firstHeader(response.headers['content-type'])?.toLowerCase() ?? '';
      const expected = streamed ? EVENT_STREAM_TYPE : 'application/json';
      if (contentType !== '' && !contentType.includes(expected)) {
        // Refused before any byte reached the client, so the caller can still retry or fall back.
        await response.discard();
        throw badResponse(options.provider, `a "${contentType}" body where ${streamed ? 'an event stream' : 'JSON'} was expected`);
      }
      return response;
    }
    const errorText = await readErrorText(response);
    throw bedrockStatusError(options.provider, response, errorText, options.apiKey, parseRetryAfterMs(response.headers, options.now()));
  }

  return {
    post,
    async postJson(model, action, body, call, schema) {
      const response = await post(model, action, body, call);
      const json = parseJson(await response.text());
      if (!json.ok) throw badResponse(options.provider, 'a body that is not JSON');
      const parsed = schema.safeParse(json.value);
      if (!parsed.success) throw badResponse(options.provider, 'a reply of an unexpected shape');
      return { value: parsed.data, response };
    },
  };
}

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
