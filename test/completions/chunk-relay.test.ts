import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../contract';
import type { ChatChunkStream } from '../../server/completions/chat-call';
import { renderedEvents, type ChunkRenderer } from '../../server/completions/chunk-relay';
import type { ModelConfig } from '../../server/config/load-config';
import { GatewayError, usageUnavailable } from '../../server/errors/gateway-error';
import { chatChunk } from '../fixtures/chat-chunk';
import { collectAll } from '../helpers/collect-all';

/** The relay of translated streams (completions/chunk-relay.ts) on a fake chunk stream and a plain-text renderer. */
function chunk(text: string): ChatCompletionChunk {
  return chatChunk({ content: text });
}

interface FakeChunks extends ChatChunkStream {
  /** The chunks' own `finally` ran (where the real ones record usage). */
  readonly closed: boolean;
  aborted: boolean;
}

function fakeChunks(batches: string[][], options: { failAfter?: GatewayError; recorded?: Promise<void> } = {}): FakeChunks {
  const state = { closed: false };
  async function* read(): AsyncGenerator<ChatCompletionChunk[], void, undefined> {
    try {
      for (const batch of batches) yield batch.map(chunk);
      if (options.failAfter) throw options.failAfter;
    } finally {
      state.closed = true;
    }
  }
  const fake: FakeChunks = {
    get closed() {
      return state.closed;
    },
    aborted: false,
    model: { id: 'm' } as ModelConfig,
    batches: read(),
    usage: () => ({ promptTokens: 3, completionTokens: 4, reported: true }),
    recorded: () => options.recorded ?? Promise.resolve(),
    abort: () => {
      fake.aborted = true;
    },
  };
  return fake;
}

const renderer: ChunkRenderer = {
  opening: () => '<start>',
  batch: (batch) => batch.map((entry) => entry.choices[0]?.delta.content ?? '').join(''),
  failure: (error) => `<fail ${error.code}>`,
  closing: (chunks) => `<finish ${chunks.usage().completionTokens}>`,
};

describe('renderedEvents', () => {
  it('sends the opening events with the first read, one string per read, the closing events after the usage is recorded', async () => {
    let recorded = false;
    const chunks = fakeChunks([['a', 'b'], [], ['c']], { recorded: Promise.resolve().then(() => void (recorded = true)) });
    const out = await collectAll(
      renderedEvents(chunks, { ...renderer, closing: (stream) => `<finish recorded=${recorded} ${stream.usage().completionTokens}>` }),
    );
    expect(out).toEqual(['<start>ab', 'c', '<finish recorded=true 4>']);
    expect(chunks.closed).toBe(true);
  });

  it('an empty stream still opens and closes', async () => {
    expect(await collectAll(renderedEvents(fakeChunks([]), renderer))).toEqual(['<start><finish 4>']);
  });

  it('a failure after the start becomes the fail event, and nothing follows it', async () => {
    const error = new GatewayError(502, 'upstream_error', 'bad_response', 'Cut.');
    expect(await collectAll(renderedEvents(fakeChunks([['a']], { failAfter: error }), renderer))).toEqual([
      '<start>a',
      '<fail bad_response>',
    ]);
    expect(await collectAll(renderedEvents(fakeChunks([], { failAfter: error }), renderer))).toEqual(['<start><fail bad_response>']);
  });

  it('usage that cannot be made durable replaces the closing events with the fail event', async () => {
    const chunks = fakeChunks([['a']], { recorded: Promise.reject(usageUnavailable()) });
    expect(await collectAll(renderedEvents(chunks, renderer))).toEqual(['<start>a', '<fail usage_unavailable>']);
  });

  it('a client that leaves at the first events closes the chunks too (their finally records the usage)', async () => {
    const chunks = fakeChunks([['a'], ['b']]);
    const events = renderedEvents(chunks, renderer);
    expect((await events.next()).value).toBe('<start>a');
    await events.return(undefined);
    expect(chunks.closed).toBe(true);
  });

  it('a bug (not a GatewayError) is not turned into an event', async () => {
    const chunks = fakeChunks([['a']], { failAfter: new TypeError('bug') as unknown as GatewayError });
    await expect(collectAll(renderedEvents(chunks, renderer))).rejects.toThrow('bug');
  });
});
