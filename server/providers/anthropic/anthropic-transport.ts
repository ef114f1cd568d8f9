import { readErrorText } from '../transport-errors';
import type { CallSignal } from '../call-signal';
import type { TraceHeaders } from '../trace-headers';
import type { HttpClient, HttpResponse } from '../types';
import { parseRetryAfterMs } from '../upstream-errors';
import { anthropicStatusError } from './anthropic-error';

/**
 * One call of the Messages API, in the terms every host of Claude shares: the Messages body
 * (with `model` set to the upstream model), whether it streams, and the client's version
 * and beta headers. The transport decides the URL, the authentication and where the model
 * and version travel (Anthropic's API: headers and body; Vertex AI: the path and the body).
 */
export interface AnthropicCall {
  /** `messages`: POST /v1/messages; `count_tokens`: POST /v1/messages/count_tokens. */
  kind: 'messages' | 'count_tokens';
  body: Record<string, unknown> & { model: string };
  stream: boolean;
  /** The client's `anthropic-version`, when the call passes a client's request through. */
  anthropicVersion: string | null;
  anthropicBeta: string | null;
  signal: CallSignal;
  /** docs/tracing.md: the attempt's `traceparent`; absent while traces are off. */
  traceHeaders?: TraceHeaders | undefined;
}

export interface AnthropicTransport {
  /** Resolves with the 2xx response, unread; rejects with an UpstreamError otherwise. */
  send(call: AnthropicCall): Promise<HttpResponse>;
  /** The credential of the last call, scrubbed from anything passed on; '' when there is none. */
  secret(): string;
}

/** Anthropic's API version the adapter speaks (https://platform.claude.com/docs/en/api/versioning). */
export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicApiTransportOptions {
  provider: string;
  /** Host root, e.g. https://api.anthropic.com (docs/configuration.md). */
  baseUrl: string;
  apiKey: string;
  http: HttpClient;
  now: () => number;
}

/**
 * Anthropic's own API: POST `${baseUrl}/v1/messages` (and `/v1/messages/count_tokens`),
 * authenticated with `x-api-key`, the version in the `anthropic-version` header.
 * https://platform.claude.com/docs/en/api/messages
 */
export function createAnthropicApiTransport(options: AnthropicApiTransportOptions): AnthropicTransport {
  const root = options.baseUrl.endsWith('/') ? options.baseUrl.slice(0, -1) : options.baseUrl;
  return {
    async send(call) {
      const headers: Record<string, string> = {
        'x-api-key': options.apiKey,
        'anthropic-version': call.anthropicVersion ?? ANTHROPIC_VERSION,
        'content-type': 'application/json',
        accept: call.stream ? 'text/event-stream' : 'application/json',
      };
      if (call.anthropicBeta) headers['anthropic-beta'] = call.anthropicBeta;
      if (call.traceHeaders) Object.assign(headers, call.traceHeaders);
      const path = call.kind === 'messages' ? '/v1/messages' : '/v1/messages/count_tokens';
      const response = await options.http.request({
        url: `${root}${path}`,
        method: 'POST',
        headers,
        body: JSON.stringify(call.body),
        signal: call.signal,
        // A JSON reply is read whole; an event stream is not.
        buffered: !call.stream,
      });
      if (response.status >= 200 && response.status < 300) return response;
      const text = await readErrorText(response);
      throw anthropicStatusError(
        options.provider,
        response.status,
        text,
        options.apiKey,
        parseRetryAfterMs(response.headers, options.now()),
      );
    },
    secret: () => options.apiKey,
  };
}
