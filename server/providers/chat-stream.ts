import type { ChatCompletionChunk } from '../../contract';
import type { ChatStream } from './types';

/** A ChatStream made from chunks grouped by upstream read; `chunks` reads the same groups one by one. */
export function batchedChatStream(batches: AsyncIterable<ChatCompletionChunk[]>): ChatStream {
  return {
    batches,
    get chunks() {
      return oneByOne(batches);
    },
  };
}

async function* oneByOne(batches: AsyncIterable<ChatCompletionChunk[]>): AsyncGenerator<ChatCompletionChunk> {
  for await (const batch of batches) yield* batch;
}
