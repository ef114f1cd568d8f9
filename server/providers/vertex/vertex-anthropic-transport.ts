import { readErrorText } from '../transport-errors';
import { anthropicStatusError, readAnthropicErrorMessage } from '../anthropic/anthropic-error';
import type { AnthropicTransport } from '../anthropic/anthropic-transport';
import { geminiStatusError } from '../gemini/gemini-error';
import type { UpstreamError } from '../../errors/gateway-error';
import { parseRetryAfterMs } from '../upstream-errors';
import type { VertexTransportOptions } from './vertex-gemini-transport';
import { vertexModelUrl } from './vertex-options';

/** The Messages API version Claude on Vertex AI takes, in the body (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/**
 * Claude on Vertex AI: Anthropic's Messages body without `model` (the model is in the path)
 * and with `anthropic_version` in the body, POSTed to `:rawPredict` or, for `stream: true`,
 * `:streamRawPredict`; token counts at the `count-tokens:rawPredict` resource, the model in
 * the body (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/count-tokens).
 * `anthropic-beta` travels as a header, as on Anthropic's API.
 */
export function createVertexAnthropicTransport(options: VertexTransportOptions): AnthropicTransport {
  return {
    async send(call) {
      const token = await options.tokens.token(call.signal);
      const { model, ...rest } = call.body;
      const counting = call.kind === 'count_tokens';
      const url = counting
        ? vertexModelUrl(options.root, options.vertex, 'count-tokens', 'rawPredict')
        : vertexModelUrl(options.root, options.vertex, model, call.stream ? 'streamRawPredict' : 'rawPredict');
      const body = counting
        ? { ...rest, model, anthropic_version: VERTEX_ANTHROPIC_VERSION }
        : { ...rest, anthropic_version: VERTEX_ANTHROPIC_VERSION };
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: call.stream ? 'text/event-stream' : 'application/json',
      };
      if (call.anthropicBeta) headers['anthropic-beta'] = call.anthropicBeta;
      if (call.traceHeaders) Object.assign(headers, call.traceHeaders);
      const response = await options.http.request({
        url,
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: call.signal,
        buffered: !call.stream,
      });
      if (response.status >= 200 && response.status < 300) return response;
      const text = await readErrorText(response);
      throw vertexClaudeError(options.provider, response.status, text, token, parseRetryAfterMs(response.headers, options.now()));
    },
    secret: () => options.tokens.current(),
  };
}

/**
 * Claude's own errors arrive in Anthropic's shape; Vertex AI's (authentication, quota, an
 * unknown model) in Google's `{error: {code, message, status}}`.
 */
function vertexClaudeError(provider: string, status: number, text: string, token: string, retryAfterMs: number | null): UpstreamError {
  if (readAnthropicErrorMessage(text) !== null) return anthropicStatusError(provider, status, text, token, retryAfterMs);
  return geminiStatusError(provider, status, text, token, retryAfterMs);
}
