import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../../contract';
import { UpstreamError } from '../../../server/errors/gateway-error';
import { googleError, promptBlockedReply, streamEvent } from './fixtures';
import { API_KEY, callOptions, chatRequest, chatTarget, collect, NOW, rejectionOf, useHarness, type Harness } from './harness';

const created = Math.floor(NOW / 1000);
const base = { object: 'chat.completion.chunk', created, model: 'gemini-flash' } as const;

function contentOf(chunks: ChatCompletionChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
}

describe('Gemini streaming', () => {
  const harness = useHarness();

  async function streamOf(events: unknown[], extra: { chunkBytes?: number; lineEnding?: '\r\n' | '\n' } = {}) {
    harness.upstream.reply({ type: 'sse', events, ...extra });
    return harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, callOptions());
  }

  it('translates text events into chunks, then one usage chunk', async () => {
    const stream = await streamOf([
      streamEvent([{ text: 'Hel' }], { usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } }),
      streamEvent([{ text: 'lo!' }], {
        finishReason: 'STOP',
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, thoughtsTokenCount: 10, totalTokenCount: 17 },
      }),
    ]);
    const chunks = await collect(stream);

    const [request] = harness.upstream.requests;
    expect(request?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(request?.headers['x-goog-api-key']).toBe(API_KEY);

    const id = chunks[0]?.id;
    expect(id).toMatch(/^chatcmpl-/);
    expect(chunks).toEqual([
      { id, ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      { id, ...base, choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] },
      { id, ...base, choices: [{ index: 0, delta: { content: 'lo!' }, finish_reason: null }] },
      { id, ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      {
        id,
        ...base,
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 12, total_tokens: 17, completion_tokens_details: { reasoning_tokens: 10 } },
      },
    ]);
  });

  it('streams function calls as complete tool_calls deltas with running indexes', async () => {
    const stream = await streamOf([
      streamEvent([{ text: 'Checking.' }]),
      streamEvent([
        { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig' },
        { functionCall: { name: 'get_time', args: {} } },
      ]),
      streamEvent([{ functionCall: { id: 'given-id', name: 'get_news', args: { topic: 'rain' } } }], {
        finishReason: 'STOP',
        usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 15, totalTokenCount: 35 },
      }),
    ]);
    const chunks = await collect(stream);
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas).toEqual([
      { index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { index: 1, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_time', arguments: '{}' } },
      { index: 2, id: 'given-id', type: 'function', function: { name: 'get_news', arguments: '{"topic":"rain"}' } },
    ]);
    expect(contentOf(chunks)).toBe('Checking.');
    expect(chunks.at(-2)?.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 20, completion_tokens: 15, total_tokens: 35 } });
  });

  it('decodes bytes split at awkward points (multi-byte characters, CRLF)', async () => {
    const pieces = ['Grüße, ', '世界 👋', '\nline two', ' — fin'];
    const events = pieces.map((text, index) =>
      streamEvent(
        [{ text }],
        index === pieces.length - 1 ? { finishReason: 'STOP', usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 4 } } : {},
      ),
    );
    for (const chunkBytes of [1, 2, 3, 5, 7, 64]) {
      for (const lineEnding of ['\r\n', '\n'] as const) {
        const chunks = await collect(await streamOf(events, { chunkBytes, lineEnding }));
        expect(contentOf(chunks), `chunkBytes ${chunkBytes}`).toBe(pieces.join(''));
        expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 1, completion_tokens: 4, total_tokens: 5 });
      }
    }
  });

  it('ends a blocked prompt with a content_filter chunk', async () => {
    const chunks = await collect(await streamOf([promptBlockedReply]));
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? null)).toEqual([null, 'content_filter', null]);
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 });
  });

  it('maps MAX_TOKENS and safety stops on the final chunk', async () => {
    const length = await collect(await streamOf([streamEvent([{ text: 'a' }], { finishReason: 'MAX_TOKENS' })]));
    expect(length.at(-1)?.choices[0]?.finish_reason).toBe('length');
    const filtered = await collect(await streamOf([streamEvent([{ text: 'a' }]), streamEvent([], { finishReason: 'SAFETY' })]));
    expect(filtered.at(-1)?.choices[0]?.finish_reason).toBe('content_filter');
  });

  it('emits no usage chunk when Gemini reports none', async () => {
    const chunks = await collect(await streamOf([streamEvent([{ text: 'a' }], { finishReason: 'STOP' })]));
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
  });

  describe('failures after the start are thrown from the iterator', () => {
    async function failure(reply: Parameters<Harness['upstream']['reply']>[0]) {
      harness.upstream.reply(reply);
      const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, callOptions());
      const received: ChatCompletionChunk[] = [];
      const error = await rejectionOf(
        (async () => {
          for await (const chunk of stream.chunks) received.push(chunk);
        })(),
      );
      return { error, received };
    }

    it('a connection dropped mid-stream', async () => {
      const { error, received } = await failure({
        type: 'sse',
        events: [streamEvent([{ text: 'partial' }]), streamEvent([{ text: 'never' }], { finishReason: 'STOP' })],
        dropAfter: 1,
      });
      expect(contentOf(received)).toBe('partial');
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ kind: 'unavailable', retryable: true });
    });

    it('a stream that ends without a finish reason', async () => {
      const { error } = await failure({ type: 'sse', events: [streamEvent([{ text: 'partial' }])] });
      expect(error).toMatchObject({ kind: 'bad_response', code: 'upstream_bad_response' });
    });

    it('an empty stream', async () => {
      const { error } = await failure({ type: 'sse', events: [] });
      expect(error).toMatchObject({ kind: 'bad_response' });
    });

    it('an event that is not JSON', async () => {
      const { error } = await failure({
        type: 'sse',
        events: [streamEvent([{ text: 'a' }]), '{"candidates": [', streamEvent([], { finishReason: 'STOP' })],
      });
      expect(error).toMatchObject({ kind: 'bad_response' });
    });

    it('an error event from Google', async () => {
      const { error, received } = await failure({
        type: 'sse',
        events: [streamEvent([{ text: 'a' }]), googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.')],
      });
      expect(contentOf(received)).toBe('a');
      expect(error).toMatchObject({ kind: 'unavailable', retryable: true, upstreamStatus: 503 });
    });
  });

  it('rejects before streaming when the upstream answers an error status', async () => {
    harness.upstream.reply({ type: 'json', status: 429, body: googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.') });
    const error = await rejectionOf(harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, callOptions()));
    expect(error).toMatchObject({ kind: 'unavailable', retryable: true, upstreamStatus: 429 });
  });

  it('stopping early releases the upstream request', async () => {
    harness.upstream.reply({ type: 'sse', events: [streamEvent([{ text: 'first' }])], hold: true });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, callOptions());
    const received: ChatCompletionChunk[] = [];
    for await (const chunk of stream.chunks) {
      received.push(chunk);
      if (chunk.choices[0]?.delta.content === 'first') break;
    }
    expect(contentOf(received)).toBe('first');
    await harness.upstream.requests[0]?.aborted;
    expect(harness.upstream.requests[0]?.wasAborted()).toBe(true);
  });

  it('giving up before reading any chunk releases the upstream request', async () => {
    harness.upstream.reply({ type: 'sse', events: [streamEvent([{ text: 'unread' }])], hold: true });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, callOptions());
    await stream.chunks[Symbol.asyncIterator]().return?.();
    await harness.upstream.requests[0]?.aborted;
    expect(harness.upstream.requests[0]?.wasAborted()).toBe(true);
  });
});
