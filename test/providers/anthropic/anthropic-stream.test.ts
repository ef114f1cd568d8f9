import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../../contract';
import { translateAnthropicStream } from '../../../server/providers/anthropic/anthropic-stream';
import { parseSse } from '../../../server/streaming/parse-sse';
import { encodeSseEvent, events, textStream, type MockSseEvent } from '../../helpers/mock-anthropic-upstream';
import { TEST_API_KEY, TEST_TARGET, callOptions, useAnthropicTestProvider } from './harness';

const hello: ChatCompletionRequest = { model: 'claude-haiku', messages: [{ role: 'user', content: 'Hello' }], stream: true };

/** Text with multi-byte characters (split mid-character by the byte-level tests), then two tool calls. */
const toolStream: MockSseEvent[] = [
  events.messageStart(472),
  events.textStart(0),
  events.textDelta(0, 'Je vérifie '),
  events.textDelta(0, 'la météo 🌦 東京.'),
  events.blockStop(0),
  events.toolStart(1, 'toolu_01A', 'get_weather'),
  events.jsonDelta(1, ''),
  events.jsonDelta(1, '{"city": "Pa'),
  events.ping(),
  events.jsonDelta(1, 'ris"}'),
  events.blockStop(1),
  events.toolStart(2, 'toolu_01B', 'get_time'),
  events.jsonDelta(2, ''),
  events.blockStop(2),
  events.messageDelta('tool_use', 89),
  events.messageStop(),
];

const toolStreamDeltas = [
  { role: 'assistant', content: '' },
  { content: 'Je vérifie ' },
  { content: 'la météo 🌦 東京.' },
  { tool_calls: [{ index: 0, id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
  { tool_calls: [{ index: 0, function: { arguments: '{"city": "Pa' } }] },
  { tool_calls: [{ index: 0, function: { arguments: 'ris"}' } }] },
  { tool_calls: [{ index: 1, id: 'toolu_01B', type: 'function', function: { name: 'get_time', arguments: '' } }] },
  { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
  {},
];

describe('Anthropic adapter: streamed replies', () => {
  const { upstream, client } = useAnthropicTestProvider();

  it('translates a text stream: role first, content deltas, finish_reason, one usage chunk', async () => {
    upstream.reply({
      type: 'sse',
      events: textStream(['Hello', '! How can', ' I help?'], 'end_turn', { input_tokens: 25, output_tokens: 15 }),
    });
    const chunks = await collect(client.provider.chatStream(hello, TEST_TARGET, callOptions()));

    const id = chunks[0]?.id;
    expect(id).toMatch(/^chatcmpl-test\d+$/);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id, object: 'chat.completion.chunk', created: 1_767_225_600, model: 'claude-haiku' });
    }
    expect(chunks.map((chunk) => chunk.choices)).toEqual([
      [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
      [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }],
      [{ index: 0, delta: { content: '! How can' }, finish_reason: null }],
      [{ index: 0, delta: { content: ' I help?' }, finish_reason: null }],
      [{ index: 0, delta: {}, finish_reason: 'stop' }],
      [],
    ]);
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 25,
      completion_tokens: 15,
      total_tokens: 40,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    expect(chunks.filter((chunk) => chunk.usage)).toHaveLength(1);
  });

  it('streams tool calls with their own 0-based index, and "{}" for a tool without input', async () => {
    upstream.reply({ type: 'sse', events: toolStream });
    const chunks = await collect(client.provider.chatStream(hello, TEST_TARGET, callOptions()));
    expect(deltas(chunks)).toEqual(toolStreamDeltas);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 472,
      completion_tokens: 89,
      total_tokens: 561,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it.each([
    ['byte by byte', [1]],
    ['in odd slices', [3, 7, 1, 13, 2, 31]],
  ])('gives the same chunks when the body arrives %s', async (_name, slices) => {
    upstream.reply({ type: 'sse', events: toolStream, slices });
    const chunks = await collect(client.provider.chatStream(hello, TEST_TARGET, callOptions()));
    expect(deltas(chunks)).toEqual(toolStreamDeltas);
  });

  it('maps max_tokens, and takes usage from message_delta when it carries input counts too', async () => {
    upstream.reply({
      type: 'sse',
      events: [
        events.messageStart(43, { cache_read_input_tokens: 7 }),
        events.textStart(0),
        events.textDelta(0, 'p'),
        events.blockStop(0),
        { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { input_tokens: 61, output_tokens: 2 } },
        events.messageStop(),
      ],
    });
    const chunks = await collect(client.provider.chatStream(hello, TEST_TARGET, callOptions()));
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('length');
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 68,
      completion_tokens: 2,
      total_tokens: 70,
      prompt_tokens_details: { cached_tokens: 7 },
    });
  });

  it('puts the JSON-mode prefill on the first content delta only', async () => {
    upstream.reply({ type: 'sse', events: textStream(['"a": ', '1}']) });
    const chunks = await collect(
      client.provider.chatStream({ ...hello, response_format: { type: 'json_object' } }, TEST_TARGET, callOptions()),
    );
    expect(deltas(chunks).slice(0, 3)).toEqual([{ role: 'assistant', content: '' }, { content: '{"a": ' }, { content: '1}' }]);
  });

  it('turns thinking deltas into reasoning_content and ignores unknown event and delta types, as the streaming docs ask', async () => {
    upstream.reply({
      type: 'sse',
      events: [
        events.messageStart(5),
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'abc' } },
        events.blockStop(0),
        { type: 'some_future_event', payload: 1 },
        events.textStart(1),
        events.textDelta(1, 'Hi'),
        events.blockStop(1),
        events.messageDelta('end_turn', 3),
        events.messageStop(),
      ],
    });
    const chunks = await collect(client.provider.chatStream(hello, TEST_TARGET, callOptions()));
    expect(deltas(chunks)).toEqual([{ role: 'assistant', content: '' }, { reasoning_content: 'hmm' }, { content: 'Hi' }, {}]);
  });
});

describe('translateAnthropicStream with bytes split at every position', () => {
  it('gives the same chunks for every split of the body into two pieces', async () => {
    const body = Buffer.from(toolStream.map(encodeSseEvent).join(''), 'utf8');
    for (let split = 0; split <= body.length; split++) {
      const chunks: ChatCompletionChunk[] = [];
      const pieces = [body.subarray(0, split), body.subarray(split)];
      for await (const chunk of translateAnthropicStream(parseSse(fromPieces(pieces)), context())) chunks.push(chunk);
      expect(deltas(chunks), `split at byte ${split}`).toEqual(toolStreamDeltas);
    }
  });

  it('also accepts CRLF line endings', async () => {
    const body = toolStream.map(encodeSseEvent).join('').split('\n').join('\r\n');
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of translateAnthropicStream(parseSse(fromPieces([Buffer.from(body, 'utf8')])), context())) chunks.push(chunk);
    expect(deltas(chunks)).toEqual(toolStreamDeltas);
  });
});

function context() {
  return { provider: 'anthropic', id: 'chatcmpl-x', created: 1, model: 'claude-haiku', prefill: null, apiKey: TEST_API_KEY };
}

async function* fromPieces(pieces: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) if (piece.length > 0) yield piece;
}

async function collect(streamPromise: Promise<{ chunks: AsyncIterable<ChatCompletionChunk> }>): Promise<ChatCompletionChunk[]> {
  const stream = await streamPromise;
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream.chunks) chunks.push(chunk);
  return chunks;
}

/** The delta of every chunk that has a choice (the usage chunk has none). */
function deltas(chunks: ChatCompletionChunk[]): unknown[] {
  return chunks.filter((chunk) => chunk.choices.length > 0).map((chunk) => chunk.choices[0]?.delta);
}
