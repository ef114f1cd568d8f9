import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../contract';
import { ChunkEventEncoder, encodeSseData, encodeSseEvent, encodeSseEventJson } from '../../server/streaming/encode-sse';

const header = { id: 'chatcmpl-1', object: 'chat.completion.chunk' as const, created: 1_700_000_000, model: 'gpt-test' };
const content = (text: string): ChatCompletionChunk => ({
  ...header,
  choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
});

describe('ChunkEventEncoder', () => {
  it('writes the same bytes as encodeSseData for every chunk of a stream, the shared prefix included', () => {
    const encoder = new ChunkEventEncoder();
    const chunks: ChatCompletionChunk[] = [
      { ...header, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      content('Hel'),
      content('lo "quoted" \u2028 \\ ü 😀'),
      { ...header, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], system_fingerprint: 'fp_1' },
      { ...header, choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
    ];
    for (const chunk of chunks) expect(encoder.encode(chunk)).toBe(encodeSseData(chunk));
  });

  it('writes choices of every shape as JSON.stringify does: text deltas directly, the others through it', () => {
    const encoder = new ChunkEventEncoder();
    const choices = [
      [
        { index: 0, delta: { content: 'a' }, finish_reason: null },
        { index: 1, delta: { role: 'assistant', refusal: 'no' }, finish_reason: 'content_filter' },
      ],
      [{ index: 0, delta: { content: null }, finish_reason: null }],
      [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
          finish_reason: null,
        },
      ],
      [{ index: 0, delta: { content: 'b' }, finish_reason: null, logprobs: { content: [] } }],
      [{ delta: { content: 'c' }, index: 0, finish_reason: null }],
      [{ index: 0, delta: { content: 'd' } }],
      [{ index: Number.NaN, delta: {}, finish_reason: 'stop' }],
    ];
    for (const list of choices) {
      const chunk = { ...header, choices: list } as unknown as ChatCompletionChunk;
      expect(encoder.encode(chunk)).toBe(encodeSseData(chunk));
    }
  });

  it('follows a change of id, created or model within the stream', () => {
    const encoder = new ChunkEventEncoder();
    expect(encoder.encode(content('a'))).toBe(encodeSseData(content('a')));
    const other = { ...content('b'), id: 'chatcmpl-2', model: 'other "model"' };
    expect(encoder.encode(other)).toBe(encodeSseData(other));
    const later = { ...content('c'), created: 1_700_000_001 };
    expect(encoder.encode(later)).toBe(encodeSseData(later));
  });

  it('leaves out undefined fields after the choices, as JSON.stringify does', () => {
    const encoder = new ChunkEventEncoder();
    const chunk: ChatCompletionChunk = { ...content('x'), usage: undefined };
    expect(encoder.encode(chunk)).toBe(
      'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}\n\n',
    );
  });

  it('encodes chunks of another key order or shape as encodeSseData does', () => {
    const encoder = new ChunkEventEncoder();
    const reordered = {
      model: 'gpt-test',
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      choices: [],
    } as ChatCompletionChunk;
    const withoutCreated = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      model: 'gpt-test',
      choices: [],
    } as unknown as ChatCompletionChunk;
    const extraFirst = { service_tier: 'default', ...content('y') } as ChatCompletionChunk;
    const extraLast = { ...content('z'), 'odd "key"': [1, { a: null }], skipped: () => 1 } as unknown as ChatCompletionChunk;
    for (const chunk of [reordered, withoutCreated, extraFirst, extraLast]) {
      expect(encoder.encode(chunk)).toBe(encodeSseData(chunk));
      expect(JSON.parse(encoder.encode(chunk).slice('data: '.length))).toEqual(JSON.parse(JSON.stringify(chunk)));
    }
  });
});

describe('named events', () => {
  it('are an event line and one data line of JSON, whether the caller serialized the JSON or not', () => {
    const payload = { type: 'response.output_text.delta', sequence_number: 3, delta: 'line one\nline two' };
    const frame =
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":3,"delta":"line one\\nline two"}\n\n';
    expect(encodeSseEvent(payload.type, payload)).toBe(frame);
    expect(encodeSseEventJson(payload.type, JSON.stringify(payload))).toBe(frame);
  });
});
