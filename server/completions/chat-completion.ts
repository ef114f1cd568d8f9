import type { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from '../../contract';
import type { GatewayError } from '../errors/gateway-error';
import type { CachedApiKey } from '../keys/key-cache';
import type { Reply } from '../pipeline/reply';
import type { RequestContext } from '../pipeline/request-context';
import { ChunkEventEncoder, encodeSseData, SSE_DONE } from '../streaming/encode-sse';
import { toChatUsage } from '../providers/token-usage';
import { runChatCall, type ChatChunkStream, type ChatDependencies } from './chat-call';
import { relayChunks, type ChunkRenderer } from './chunk-relay';
import { costUsd } from './meter';

export type { ChatDependencies } from './chat-call';

export interface ChatRequestCall {
  body: ChatCompletionRequest;
  key: CachedApiKey;
  context: RequestContext;
  reply: Reply;
}

/**
 * POST /v1/chat/completions: the chat call (chat-call.ts) rendered in OpenAI's format.
 * Returns the completion to send, or null for a stream, whose reply is then under way.
 */
export async function createChatCompletion(dependencies: ChatDependencies, call: ChatRequestCall): Promise<ChatCompletion | null> {
  const result = await runChatCall(dependencies, { body: call.body, key: call.key, context: call.context, client: call.reply });
  if (!result.stream) return result.completion;
  relayChunks(call.reply, result.chunks, new ChatChunkEvents(result.chunks, call.body.stream_options?.include_usage === true));
  return null;
}

/**
 * The SSE events of one streamed reply (docs/chat-and-streaming.md): chunks as they come,
 * the usage chunk only when the client asked for it, `[DONE]`; an error after the start
 * becomes an error event. The chunks of one upstream read are encoded into one string.
 */
class ChatChunkEvents implements ChunkRenderer {
  private readonly encoder = new ChunkEventEncoder();
  private last: ChatCompletionChunk | null = null;
  private sawUsage = false;

  constructor(
    private readonly chunks: ChatChunkStream,
    private readonly includeUsage: boolean,
  ) {}

  opening(): string {
    return '';
  }

  batch(batch: ChatCompletionChunk[]): string {
    const { includeUsage, encoder } = this;
    let events = '';
    for (const chunk of batch) {
      this.last = chunk;
      if (chunk.usage) {
        this.sawUsage = true;
        // The price of what the stream reported (docs/pricing.md), for a client that asked for usage.
        if (includeUsage) chunk.usage.cost_usd = costUsd(this.chunks.model, this.chunks.usage());
        if (chunk.choices.length === 0) {
          if (includeUsage) events += encoder.encode(chunk);
          continue;
        }
        if (!includeUsage) chunk.usage = undefined;
      }
      events += encoder.encode(chunk);
    }
    return events;
  }

  failure(error: GatewayError): string {
    return encodeSseData(error.toBody());
  }

  closing(chunks: ChatChunkStream): string {
    const final = this.last;
    if (!this.includeUsage || this.sawUsage || !final) return SSE_DONE;
    // A client that asked for usage gets the usage chunk, with the gateway's count (the one
    // billed) when the provider reported none.
    const tokens = chunks.usage();
    const usage = { ...toChatUsage(tokens), cost_usd: costUsd(chunks.model, tokens) };
    const usageChunk = encodeSseData({
      id: final.id,
      object: 'chat.completion.chunk',
      created: final.created,
      model: chunks.model.id,
      choices: [],
      usage,
    });
    return usageChunk + SSE_DONE;
  }
}
