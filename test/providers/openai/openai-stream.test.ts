import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../server/errors/gateway-error';
import {
  chatCompletionBody,
  chunk,
  errorBody,
  textStream,
  toolCallStream,
  UPSTREAM_ID,
  usageChunk,
} from '../../fixtures/openai/openai-bodies';
import type { SseStep } from '../../helpers/mock-openai-upstream';
import { API_KEY, chatRequest, chatTarget, collect, FIXED_NOW, rejection, useHarness } from './harness';

describe('openai adapter: streaming', () => {
  const harness = useHarness();

  it('always asks for usage, keeping the client stream options', async () => {
    harness.upstream.reply({ type: 'sse', events: textStream().map((data) => ({ data })) });
    const stream = await harness.adapter.chatStream(
      chatRequest({ stream: true, stream_options: { include_usage: false }, max_completion_tokens: 20 }),
      chatTarget,
      harness.options(),
    );
    await collect(stream.chunks);
    const [request] = harness.upstream.requests;
    expect(request?.headers.accept).toBe('text/event-stream');
    expect(request?.body).toMatchInlineSnapshot(`
      {
        "max_completion_tokens": 20,
        "messages": [
          {
            "content": "Say hello",
            "role": "user",
          },
        ],
        "model": "gpt-4o-mini",
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
      }
    `);
  });

  it('yields the chunks with the catalogue model and the usage chunk last', async () => {
    harness.upstream.reply({ type: 'sse', events: textStream().map((data) => ({ data })) });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const chunks = await collect(stream.chunks);
    expect(chunks.map((item) => item.model)).toEqual(Array(5).fill('gpt-catalogue'));
    expect(chunks.map((item) => item.id)).toEqual(Array(5).fill(UPSTREAM_ID));
    expect(chunks.map((item) => item.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hello' },
      { content: ' there' },
      {},
      null,
    ]);
    expect(chunks.map((item) => item.choices[0]?.finish_reason ?? null)).toEqual([null, null, null, 'stop', null]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } });
    expect(chunks.slice(0, -1).every((item) => item.usage === undefined)).toBe(true);
  });

  it('passes tool-call deltas through with their index', async () => {
    harness.upstream.reply({ type: 'sse', events: toolCallStream().map((data) => ({ data })) });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const chunks = await collect(stream.chunks);
    expect(chunks.map((item) => item.choices[0]?.delta.tool_calls ?? null)).toEqual([
      [{ index: 0, id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      [{ index: 0, function: { arguments: '{"location":' } }],
      [{ index: 0, function: { arguments: '"Paris"}' } }],
      [{ index: 1, id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
      null,
      null,
    ]);
    expect(chunks[4]?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks[5]?.usage).toEqual({ prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 });
  });

  it('evens out compatible servers: usage on the last content chunk, no ids, no role, odd finish reason, no [DONE]', async () => {
    const bare = (delta: Record<string, unknown>, finish: string | null, usage?: unknown) => ({
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    });
    harness.upstream.reply({
      type: 'sse',
      done: false,
      events: [
        { raw: ': keep-alive comment\r\n\r\n' },
        { data: bare({ content: 'Hi' }, null) },
        { data: bare({ tool_calls: [{ id: 'c1', function: { name: 'a', arguments: '{' } }] }, null) },
        { data: bare({ tool_calls: [{ function: { arguments: '}' } }] }, null) },
        { data: bare({ tool_calls: [{ id: 'c2', function: { name: 'b', arguments: { x: 1 } } }] }, null) },
        { data: bare({ content: '!' }, 'eos', { prompt_tokens: 5, completion_tokens: 2 }) },
      ],
    });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const chunks = await collect(stream.chunks);
    expect(chunks).toEqual([
      {
        id: 'chatcmpl-id1',
        object: 'chat.completion.chunk',
        created: Math.floor(FIXED_NOW / 1000),
        model: 'gpt-catalogue',
        choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }],
      },
      expect.objectContaining({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'a', arguments: '{' } }] },
            finish_reason: null,
          },
        ],
      }),
      expect.objectContaining({
        choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '}' } }] }, finish_reason: null }],
      }),
      expect.objectContaining({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'b', arguments: '{"x":1}' } }] },
            finish_reason: null,
          },
        ],
      }),
      expect.objectContaining({ choices: [{ index: 0, delta: { content: '!' }, finish_reason: 'stop' }] }),
      {
        id: 'chatcmpl-id1',
        object: 'chat.completion.chunk',
        created: Math.floor(FIXED_NOW / 1000),
        model: 'gpt-catalogue',
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      },
    ]);
  });

  it('reads a usage chunk with choices null (vLLM) and finishes a choice the upstream left open', async () => {
    harness.upstream.reply({
      type: 'sse',
      events: [{ data: chunk({ role: 'assistant', content: 'Hi' }) }, { data: { ...usageChunk(3, 1), choices: null } }],
    });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const chunks = await collect(stream.chunks);
    expect(chunks.map((item) => [item.choices[0]?.delta ?? null, item.choices[0]?.finish_reason ?? null, item.usage ?? null])).toEqual([
      [{ role: 'assistant', content: 'Hi' }, null, null],
      [{}, 'stop', null],
      [null, null, { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }],
    ]);
  });

  it("reads Groq's usage from x_groq", async () => {
    harness.upstream.reply({
      type: 'sse',
      events: [
        { data: chunk({ role: 'assistant', content: 'Hi' }) },
        {
          data: {
            ...chunk({}, 'stop'),
            x_groq: { id: 'req_1', usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5, queue_time: 0.01 } },
          },
        },
      ],
    });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const chunks = await collect(stream.chunks);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 } });
  });

  it('turns a JSON answer to a stream request into chunks', async () => {
    harness.upstream.reply({ type: 'json', body: chatCompletionBody() });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const chunks = await collect(stream.chunks);
    expect(chunks.map((item) => [item.choices[0] ?? null, item.usage ?? null])).toEqual([
      [{ index: 0, delta: { role: 'assistant', content: 'Hello! How can I assist you today?' }, finish_reason: 'stop' }, null],
      [
        null,
        {
          prompt_tokens: 19,
          completion_tokens: 10,
          total_tokens: 29,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      ],
    ]);
  });

  it('rejects before any chunk when the upstream refuses, so the call can be retried', async () => {
    harness.upstream.reply({ type: 'json', status: 503, body: errorBody('Overloaded', 'server_error', null) });
    const error = await rejection(harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options()));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'unavailable', retryable: true, upstreamStatus: 503 });
  });

  it('throws an error event sent mid-stream as an UpstreamError, without the key', async () => {
    harness.upstream.reply({
      type: 'sse',
      done: false,
      events: [
        { data: chunk({ role: 'assistant', content: 'Hel' }) },
        { data: { error: { message: `Engine crashed for ${API_KEY}`, type: 'server_error', code: null } } },
      ],
    });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const seen: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const item of stream.chunks) seen.push(item.choices[0]?.delta.content ?? '');
      })(),
    );
    expect(seen).toEqual(['Hel']);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'unavailable', status: 502 });
    expect((error as Error).message).toContain('Engine crashed');
    expect((error as Error).message).not.toContain(API_KEY);
  });

  it('maps an error event with an HTTP code like a status', async () => {
    harness.upstream.reply({ type: 'sse', done: false, events: [{ data: { error: { message: 'Prompt too long', code: 400 } } }] });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const error = await rejection(collect(stream.chunks));
    expect(error).toMatchObject({ kind: 'rejected', status: 400, message: 'The provider "openai" rejected the request: Prompt too long' });
  });

  it('throws when the connection drops mid-stream', async () => {
    harness.upstream.reply({ type: 'sse', events: [{ data: chunk({ role: 'assistant', content: 'Hel' }) }, { drop: true, delayMs: 20 }] });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const error = await rejection(collect(stream.chunks));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'unavailable', retryable: true });
  });

  it('throws bad_response for a stream that ends cleanly before any finish', async () => {
    harness.upstream.reply({ type: 'sse', done: false, events: [{ data: chunk({ role: 'assistant', content: 'Hel' }) }] });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    expect(await rejection(collect(stream.chunks))).toMatchObject({ kind: 'bad_response', status: 502 });
  });

  it.each([
    ['an event that is not JSON', '{"choices": ['],
    ['an event of the wrong shape', '{"choices": "many"}'],
  ])('throws bad_response for %s', async (_name, data) => {
    harness.upstream.reply({ type: 'sse', events: [{ data: chunk({ role: 'assistant', content: 'a' }) }, { data }] });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    expect(await rejection(collect(stream.chunks))).toMatchObject({ kind: 'bad_response', code: 'upstream_bad_response' });
  });

  it('closes the upstream connection when the client aborts', async () => {
    harness.upstream.reply({
      type: 'sse',
      events: [{ data: chunk({ role: 'assistant', content: 'a' }) }, { data: chunk({ content: 'b' }), delayMs: 10_000 }],
    });
    const controller = new AbortController();
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, {
      signal: controller.signal,
      requestId: 'r',
    });
    const iterator = stream.chunks[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.choices[0]?.delta.content).toBe('a');
    const pending = iterator.next();
    controller.abort();
    expect(await rejection(pending)).toMatchObject({ name: 'AbortError' });
    await harness.upstream.requests[0]?.aborted;
  });

  it('closes the upstream connection when the consumer stops reading', async () => {
    harness.upstream.reply({
      type: 'sse',
      events: [{ data: chunk({ role: 'assistant', content: 'a' }) }, { data: chunk({ content: 'b' }), delayMs: 10_000 }],
    });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    for await (const item of stream.chunks) {
      expect(item.choices[0]?.delta.content).toBe('a');
      break;
    }
    await harness.upstream.requests[0]?.aborted;
  });

  it('keeps the connection of a stream read to its [DONE] for the next request', async () => {
    // The body ends 50 ms after `[DONE]`: the adapter stops reading at `[DONE]` all the same.
    const events: SseStep[] = [...textStream().map((data) => ({ data })), { raw: 'data: [DONE]\n\n' }, { raw: ': end\n\n', delayMs: 50 }];
    harness.upstream.reply({ type: 'sse', events, done: false }, { type: 'sse', events, done: false });
    for (let turn = 0; turn < 2; turn++) {
      const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
      expect((await collect(stream.chunks)).length).toBe(5);
      // The rest of the body is read in the background: let it end before the next request.
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const [first, second] = harness.upstream.requests;
    expect(second?.remotePort).toBeDefined();
    expect(second?.remotePort).toBe(first?.remotePort);
  });
});
