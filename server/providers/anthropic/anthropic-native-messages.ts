import { z } from 'zod';
import type { NativeMessagesApi } from '../types';
import { badResponse, parseJson } from '../upstream-errors';
import type { AnthropicTransport } from './anthropic-transport';

/**
 * The pass-through of the gateway's /v1/messages routes to an Anthropic-type upstream
 * (docs/anthropic-messages.md): the client's body goes as it came with only `model` replaced
 * (unknown fields, `cache_control`, `thinking`, `metadata` included), with the client's
 * `anthropic-version` (else the adapter's) and `anthropic-beta` headers, through the
 * provider's transport (anthropic-transport.ts).
 * https://platform.claude.com/docs/en/api/messages
 * https://platform.claude.com/docs/en/api/messages-count-tokens
 */
const CountTokensReplySchema = z.object({ input_tokens: z.number().int().nonnegative() }).passthrough();

export function createNativeMessages(provider: string, transport: AnthropicTransport): NativeMessagesApi {
  return {
    async create(body, target, call) {
      const stream = body.stream === true;
      const response = await transport.send({
        kind: 'messages',
        body: { ...body, model: target.upstreamModel },
        stream,
        anthropicVersion: call.anthropicVersion,
        anthropicBeta: call.anthropicBeta,
        signal: call.signal,
        traceHeaders: call.traceHeaders,
      });
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
      const response = await transport.send({
        kind: 'count_tokens',
        body: { ...body, model: target.upstreamModel },
        stream: false,
        anthropicVersion: call.anthropicVersion,
        anthropicBeta: call.anthropicBeta,
        signal: call.signal,
        traceHeaders: call.traceHeaders,
      });
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
