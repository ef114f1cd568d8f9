import { z } from 'zod';
import { compileBodySchema } from '../../pipeline/compiled-schema';
import { encodeSseEvent } from '../../streaming/encode-sse';
import type { HttpResponse, ModelTarget, NativeMessagesApi, NativeMessagesHeaders } from '../types';
import { badResponse, parseJson } from '../upstream-errors';
import { bedrockStreamError } from './bedrock-error';
import { isAnthropicModel } from './bedrock-models';
import { CountTokensResponseSchema, PayloadPartSchema } from './bedrock-schemas';
import type { BedrockTransport } from './bedrock-transport';
import { decodeEventStream, type EventStreamMessage } from './event-stream';

/**
 * The pass-through of the gateway's /v1/messages routes to Claude on Bedrock
 * (docs/anthropic-messages.md, docs/bedrock.md): Anthropic's own body through InvokeModel
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html),
 * the client's body with `model` and `stream` taken out (the model is in the path, the
 * operation says whether it streams), `anthropic_version: bedrock-2023-05-31` put in and the
 * client's `anthropic-beta` header carried as the body's `anthropic_beta` list.
 * InvokeModelWithResponseStream answers in event-stream framing, each `chunk` event holding one
 * of Anthropic's stream events base64-encoded in `bytes`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html):
 * they are sent on as Anthropic's server-sent events, unchanged, so that Anthropic clients
 * (Claude Code) read the stream they know.
 */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

const StreamEventTypeSchema = z.object({ type: z.string() }).passthrough();

// Checked once per streamed event: the schemas' compiled checks (pipeline/compiled-schema.ts), the values kept as they are.
const readPayloadPart = compileBodySchema(PayloadPartSchema, { unknownKeys: 'kept' });
const readStreamEventType = compileBodySchema(StreamEventTypeSchema, { unknownKeys: 'kept' });

export function createBedrockNativeMessages(transport: BedrockTransport, provider: string, apiKey: string): NativeMessagesApi {
  return {
    serves: (target: ModelTarget) => isAnthropicModel(target.upstreamModel),

    async create(body, target, call) {
      const stream = body.stream === true;
      const invokeBody = anthropicBody(body, call);
      if (!stream) return transport.post(target.upstreamModel, 'invoke', invokeBody, call);
      const response = await transport.post(target.upstreamModel, 'invoke-with-response-stream', invokeBody, call);
      return asServerSentEvents(response, provider, apiKey);
    },

    /**
     * CountTokens (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html)
     * takes the InvokeModel body, base64-encoded; that body requires `max_tokens`, which a count
     * request has not, so a placeholder is put in (it does not change the count).
     */
    async countTokens(body, target, call) {
      const invokeBody = { max_tokens: 1, ...anthropicBody(body, call) };
      const request = { input: { invokeModel: { body: Buffer.from(JSON.stringify(invokeBody), 'utf8').toString('base64') } } };
      const { value } = await transport.postJson(target.upstreamModel, 'count-tokens', request, call, CountTokensResponseSchema);
      return value.inputTokens;
    },
  };
}

function anthropicBody(body: Record<string, unknown>, headers: NativeMessagesHeaders): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = body;
  const betas = (headers.anthropicBeta ?? '')
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '');
  return { ...rest, anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...(betas.length > 0 ? { anthropic_beta: betas } : {}) };
}

/** The streamed reply as Anthropic's SSE text: the reply the pass-through relays (completions/pass-through.ts). */
function asServerSentEvents(upstream: HttpResponse, provider: string, apiKey: string): HttpResponse {
  const body = toSse(decodeEventStream(upstream.body, provider), provider, apiKey);
  return {
    status: upstream.status,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
    body,
    async text() {
      const parts: Buffer[] = [];
      for await (const bytes of body) parts.push(Buffer.from(bytes));
      return Buffer.concat(parts).toString('utf8');
    },
    discard: () => upstream.discard(),
    finish: () => upstream.finish(),
  };
}

async function* toSse(batches: AsyncIterable<EventStreamMessage[]>, provider: string, apiKey: string): AsyncGenerator<Uint8Array> {
  for await (const messages of batches) {
    let text = '';
    let failure: Error | null = null;
    try {
      for (const message of messages) {
        if (message.messageType !== 'event') throw bedrockStreamError(provider, message.type, message.payload, apiKey);
        if (message.type === 'chunk') text += anthropicEvent(message.payload, provider);
      }
    } catch (error) {
      failure = error as Error;
    }
    // The events before an exception or a malformed chunk reach the client first.
    if (text !== '') yield Buffer.from(text, 'utf8');
    if (failure) throw failure;
  }
}

/** One `chunk` event's Anthropic event, as `event: <type>` + `data: <json>`. */
function anthropicEvent(payload: string, provider: string): string {
  const part = parseJson(payload);
  const bytes = part.ok ? readPayloadPart(part.value) : null;
  if (!bytes?.success) throw badResponse(provider, 'a malformed "chunk" stream event');
  const event = parseJson(Buffer.from(bytes.data.bytes, 'base64').toString('utf8'));
  const typed = event.ok ? readStreamEventType(event.value) : null;
  if (!typed?.success) throw badResponse(provider, 'a stream chunk that is not an Anthropic event');
  return encodeSseEvent(typed.data.type, typed.data);
}
