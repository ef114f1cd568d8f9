import { describe, expect, it } from 'vitest';
import { converseEnd, converseTextEvents, type MockBedrockEvent } from '../../helpers/mock-bedrock-upstream';
import { callOptions, chatRequest, chatTarget, collect, createHarness, novaTarget, rejectionOf, useHarness } from './harness';

const TOOL_EVENTS: MockBedrockEvent[] = [
  { event: 'messageStart', payload: { role: 'assistant' } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Let me check.' } } },
  { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
  { event: 'contentBlockStart', payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_a', name: 'get_weather' } } } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { toolUse: { input: '"Oslo"}' } } } },
  { event: 'contentBlockStop', payload: { contentBlockIndex: 1 } },
  { event: 'contentBlockStart', payload: { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_b', name: 'now' } } } },
  { event: 'contentBlockStop', payload: { contentBlockIndex: 2 } },
  ...converseEnd('tool_use', { inputTokens: 30, outputTokens: 12 }),
];

describe('bedrock adapter: ConverseStream in event-stream framing', () => {
  const harness = useHarness();

  it('streams text deltas read byte by byte, then the finish reason and the usage with cache tokens', async () => {
    harness.upstream.reply({
      type: 'events',
      events: converseTextEvents(['Hel', 'lo!'], 'end_turn', {
        inputTokens: 9,
        outputTokens: 2,
        cacheReadInputTokens: 100,
        cacheWriteInputTokens: 7,
      }),
      slices: [1, 3, 7],
    });
    const stream = await harness.adapter.chatStream(chatRequest(), chatTarget, callOptions());
    const chunks = await collect(stream);
    expect(harness.upstream.requests[0]?.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream');
    expect(harness.upstream.requests[0]?.headers.accept).toBe('application/vnd.amazon.eventstream');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hel' },
      { content: 'lo!' },
      {},
      null,
    ]);
    expect(chunks[3]?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks[4]).toEqual({
      id: 'chatcmpl-id1',
      object: 'chat.completion.chunk',
      created: 1_750_000_000,
      model: 'claude-bedrock',
      choices: [],
      usage: { prompt_tokens: 116, completion_tokens: 2, total_tokens: 118, prompt_tokens_details: { cached_tokens: 100 } },
    });
    expect(stream.usage).toEqual({ promptTokens: 116, completionTokens: 2, cachedTokens: 100, cacheWriteTokens: 7 });
  });

  it('streams text deltas with the padding member Bedrock adds to events, and with escapes', async () => {
    const delta = (text: string, p?: string) => ({
      event: 'contentBlockDelta',
      payload: { contentBlockIndex: 0, delta: { text }, ...(p === undefined ? {} : { p }) },
    });
    harness.upstream.reply({
      type: 'events',
      events: [
        { event: 'messageStart', payload: { p: 'abcdefghijklmnop', role: 'assistant' } },
        delta('Say ', 'abcdefghijklmnopqrstuvwxyz'),
        delta('"hi"\n', 'abc'),
        delta('\\ ✓', 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123'),
        ...converseEnd('end_turn', { inputTokens: 3, outputTokens: 4 }),
      ],
    });
    const chunks = await collect(await harness.adapter.chatStream(chatRequest(), chatTarget, callOptions()));
    expect(chunks.slice(1, 4).map((chunk) => chunk.choices[0]?.delta.content)).toEqual(['Say ', '"hi"\n', '\\ ✓']);
  });

  it('streams tool calls, numbered among tool calls only, "{}" for a tool without input', async () => {
    harness.upstream.reply({ type: 'events', events: TOOL_EVENTS });
    const chunks = await collect(await harness.adapter.chatStream(chatRequest(), novaTarget, callOptions()));
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas).toEqual([
      { index: 0, id: 'tooluse_a', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"city":' } },
      { index: 0, function: { arguments: '"Oslo"}' } },
      { index: 1, id: 'tooluse_b', type: 'function', function: { name: 'now', arguments: '' } },
      { index: 1, function: { arguments: '{}' } },
    ]);
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('streams reasoning as reasoning_content', async () => {
    harness.upstream.reply({
      type: 'events',
      events: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Hmm.' } } } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'c2ln' } } } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { text: 'Yes.' } } },
        ...converseEnd('end_turn', { inputTokens: 3, outputTokens: 9 }),
      ],
    });
    const chunks = await collect(await harness.adapter.chatStream(chatRequest(), chatTarget, callOptions()));
    expect(chunks.slice(1, 3).map((chunk) => chunk.choices[0]?.delta)).toEqual([{ reasoning_content: 'Hmm.' }, { content: 'Yes.' }]);
  });

  it('throws the mapped error of an exception message inside the stream', async () => {
    harness.upstream.reply({
      type: 'events',
      events: [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { exception: 'throttlingException', message: 'Too many tokens, please wait before trying again.' },
      ],
    });
    const stream = await harness.adapter.chatStream(chatRequest(), chatTarget, callOptions());
    const received: unknown[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const chunk of stream.chunks) received.push(chunk.choices[0]?.delta);
      })(),
    );
    expect(error).toMatchObject({ code: 'upstream_unavailable', retryable: true, upstreamStatus: 429 });
    // The chunk read with the exception came out before it.
    expect(received).toEqual([{ role: 'assistant', content: '' }]);
  });

  it('fails a stream whose connection drops, and one that ends before messageStop, before or after its start', async () => {
    harness.upstream.reply({ type: 'events', events: converseTextEvents(['a']), dropAfter: 2 });
    const dropped = await harness.adapter.chatStream(chatRequest(), chatTarget, callOptions());
    expect(await rejectionOf(collect(dropped))).toMatchObject({ code: 'upstream_unavailable', retryable: true });

    harness.upstream.reply({ type: 'events', events: converseTextEvents(['a']).slice(0, 3) });
    const unfinished = await harness.adapter.chatStream(chatRequest(), chatTarget, callOptions());
    expect(await rejectionOf(collect(unfinished))).toMatchObject({ code: 'upstream_bad_response' });

    harness.upstream.reply({ type: 'raw', body: 'not an event stream', contentType: 'application/vnd.amazon.eventstream' });
    const garbage = await harness.adapter.chatStream(chatRequest(), chatTarget, callOptions());
    expect(await rejectionOf(collect(garbage))).toMatchObject({ code: 'upstream_bad_response' });
  });

  it('closes the upstream connection when the consumer stops reading', async () => {
    harness.upstream.reply({ type: 'events', events: converseTextEvents(['a', 'b']).slice(0, 2), hold: true });
    const stream = await harness.adapter.chatStream(chatRequest(), chatTarget, callOptions());
    for await (const chunk of stream.chunks) {
      expect(chunk.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
      break;
    }
    await harness.upstream.requests[0]?.aborted;
  });

  it('ends the stream at the metadata event, whatever the body does after it', async () => {
    // The connection drops after the last event: the reply is complete all the same.
    const events = converseTextEvents(['Hi'], 'end_turn', { inputTokens: 4, outputTokens: 1 });
    harness.upstream.reply({ type: 'events', events, dropAfter: events.length });
    const stream = await harness.adapter.chatStream(chatRequest(), chatTarget, callOptions());
    const chunks = await collect(stream);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? chunk.usage)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hi' },
      {},
      { prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 },
    ]);
    expect(stream.usage).toEqual({ promptTokens: 4, completionTokens: 1 });
  });

  it('keeps the connection of a stream read to its metadata for the next request', async () => {
    // A pool of its own, so that no connection of another test can serve the second request.
    const own = await createHarness();
    try {
      const events = converseTextEvents(['Hi']);
      own.upstream.reply({ type: 'events', events }, { type: 'events', events });
      for (let turn = 0; turn < 2; turn++) {
        expect((await collect(await own.adapter.chatStream(chatRequest(), chatTarget, callOptions()))).length).toBe(4);
        // Whatever follows the metadata is read in the background: let the body end before the next request.
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      const [first, second] = own.upstream.requests;
      expect(second?.remotePort).toBeDefined();
      expect(second?.remotePort).toBe(first?.remotePort);
    } finally {
      await own.close();
    }
  });

  it('refuses a 200 that is not an event stream before any chunk, so it can be retried', async () => {
    harness.upstream.reply({ type: 'json', body: { output: {} } });
    expect(await rejectionOf(harness.adapter.chatStream(chatRequest(), chatTarget, callOptions()))).toMatchObject({
      code: 'upstream_bad_response',
    });
  });
});
