import type { ChatCompletionChunk } from '../../contract';
import { GatewayError } from '../errors/gateway-error';
import type { Reply } from '../pipeline/reply';
import { sendSse } from '../streaming/send-sse';
import type { ChatChunkStream } from './chat-call';

/**
 * How a route writes a metered chunk stream as its own events (OpenAI's chunks, Messages'
 * events, Responses' events): each method returns encoded SSE text, '' for none.
 */
export interface ChunkRenderer {
  /** The opening events: they go out with the first chunks. */
  opening(): string;
  /** The events of one upstream read's chunks. */
  batch(chunks: ChatCompletionChunk[]): string;
  /** The event that tells the client the stream failed after the start. */
  failure(error: GatewayError): string;
  /** The closing events, once the usage would survive a crash; `chunks.usage()` is the one billed. */
  closing(chunks: ChatChunkStream): string;
}

/** A renderer that translates chunk by chunk: `start` gives the opening events, `push` each chunk's. */
export abstract class ChunkTranslator implements ChunkRenderer {
  abstract start(): string;
  abstract push(chunk: ChatCompletionChunk): string;
  abstract failure(error: GatewayError): string;
  abstract closing(chunks: ChatChunkStream): string;

  opening(): string {
    return this.start();
  }

  batch(chunks: ChatCompletionChunk[]): string {
    let events = '';
    for (const chunk of chunks) events += this.push(chunk);
    return events;
  }
}

/**
 * Streams a metered chunk stream to the client in a route's events (docs/architecture.md,
 * "Request path"): the one relay of every translated stream. A client that goes away cancels
 * the upstream call and closes the chunks, which records the call as cut short.
 */
export function relayChunks(reply: Reply, chunks: ChatChunkStream, renderer: ChunkRenderer): void {
  sendSse(reply, renderedEvents(chunks, renderer), () => chunks.abort());
}

/**
 * The rendered events. Every yield is inside the read of the chunks (the opening events go
 * with the first read): a client that goes away at any of them closes the chunks too, whose
 * `finally` records the usage; closed before their first read, they would record nothing.
 */
export async function* renderedEvents(chunks: ChatChunkStream, renderer: ChunkRenderer): AsyncGenerator<string> {
  let opening = renderer.opening();
  try {
    for await (const batch of chunks.batches) {
      const text = opening + renderer.batch(batch);
      opening = '';
      if (text !== '') yield text;
    }
    // docs/usage-durability.md: the closing events go out once the usage would survive a crash.
    await chunks.recorded();
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    yield opening + renderer.failure(error);
    return;
  }
  yield opening + renderer.closing(chunks);
}
