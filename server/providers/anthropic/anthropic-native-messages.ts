import { z } from 'zod';
import { readErrorText } from '../http-client';
import type { CallSignal } from '../call-signal';
import type { HttpResponse, NativeMessagesApi, NativeMessagesHeaders, ProviderFactoryOptions } from '../types';
import { badResponse, parseJson, parseRetryAfterMs } from '../upstream-errors';
import { anthropicStatusError } from './anthropic-error';

/**
 * The pass-through of the gateway's /v1/messages routes to an Anthropic-type upstream
 * (docs/anthropic-messages.md): the client's body goes as it came with only `model` replaced
 * (unknown fields, `cache_control`, `thinking`, `metadata` included), with the client's
 * `anthropic-version` (else the adapter's) and `anthropic-beta` headers.
 * https://platform.claude.com/docs/en/api/messages
 * https://platform.claude.com/docs/en/api/messages-count-tokens
 */
const CountTokensReplySchema = z.object({ input_tokens: z.number().int().nonnegative() }).passthrough();

export function createNativeMessages(options: ProviderFactoryOptions, root: string, defaultVersion: string): NativeMessagesApi {
  const provider = options.name;

  async function post(
    path: string,
    body: Record<string, unknown>,
    upstreamModel: string,
    headers: NativeMessagesHeaders,
    signal: CallSignal,
    stream: boolean,
  ): Promise<HttpResponse> {
    const requestHeaders: Record<string, string> = {
      'x-api-key': options.apiKey,
      'anthropic-version': headers.anthropicVersion ?? defaultVersion,
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
    };
    if (headers.anthropicBeta) requestHeaders['anthropic-beta'] = headers.anthropicBeta;
    const response = await options.http.request({
      url: `${root}${path}`,
      method: 'POST',
      headers: requestHeaders,
      body: JSON.stringify({ ...body, model: upstreamModel }),
      signal,
      buffered: !stream,
    });
    if (response.status >= 200 && response.status < 300) return response;
    const text = await readErrorText(response);
    throw anthropicStatusError(provider, response.status, text, options.apiKey, parseRetryAfterMs(response.headers, options.now()));
  }

  return {
    async create(body, target, call) {
      const stream = body.stream === true;
      const response = await post('/v1/messages', body, target.upstreamModel, call, call.signal, stream);
      const contentType = firstHeader(response.headers['content-type'])?.toLowerCase() ?? '';
      const expected = stream ? 'text/event-stream' : 'application/json';
      if (contentType !== '' && !contentType.includes(expected)) {
        // Refused before any byte reached the client, so the caller can still retry or fall back.
        await response.discard();
        throw badResponse(provider, `a "${contentType}" body where ${stream ? 'an event stream' : 'JSON'} was expected`);
      }
      return response;
    },

    async countTokens(body, target, call) {
      const response = await post('/v1/messages/count_tokens', body, target.upstreamModel, call, call.signal, false);
      const json = parseJson(await response.text());
      const parsed = json.ok ? CountTokensReplySchema.safeParse(json.value) : null;
      if (!parsed?.success) throw badResponse(provider, 'a token count of an unexpected shape');
      return parsed.data.input_tokens;
    },
  };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
