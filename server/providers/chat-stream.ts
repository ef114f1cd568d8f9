import type { ChatCompletionChunk } from '../../contract';
import { toChatUsage } from './token-usage';
import type { ChatStream, TokenUsage } from './types';

export type ChunkHeader = Pick<ChatCompletionChunk, 'id' | 'object' | 'created' | 'model'>;

/**
 * A chunk of a stream's header, `choices` and, for the usage chunk, `usage`, built field by
 * field: `{ ...header, choices }` costs V8 (Node 20) far more per object (a spread followed by
 * more properties leaves its fast path; docs/performance.md, "Speed tricks in the code"), and
 * chunks are made for every event of every stream.
 */
export function chunkWith(
  header: ChunkHeader,
  choices: ChatCompletionChunk['choices'],
  usage?: ChatCompletionChunk['usage'],
): ChatCompletionChunk {
  const chunk: ChatCompletionChunk = { id: header.id, object: header.object, created: header.created, model: header.model, choices };
  if (usage) chunk.usage = usage;
  return chunk;
}

/** A stream's closing usage chunk (`choices: []`), for a reply's id, creation time and model. */
export function usageChunk(reply: Pick<ChunkHeader, 'id' | 'created' | 'model'>, tokens: TokenUsage): ChatCompletionChunk {
  return {
    id: reply.id,
    object: 'chat.completion.chunk',
    created: reply.created,
    model: reply.model,
    choices: [],
    usage: toChatUsage(tokens),
  };
}

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

/**
 * `items` that abort `release` when their consumer stops before the end or they fail, so the
 * upstream stops generating too (openai-node's pattern: `finally { if (!done) controller.abort() }`).
 */
export async function* abortWhenAbandoned<Item>(items: AsyncIterable<Item>, release: { abort(): void }): AsyncGenerator<Item> {
  let done = false;
  try {
    yield* items;
    done = true;
  } finally {
    if (!done) release.abort();
  }
}
