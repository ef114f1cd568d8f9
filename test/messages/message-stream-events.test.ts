import { describe, expect, it } from 'vitest';
import { chatChunk } from '../fixtures/chat-chunk';
import { MessageStreamTranslator } from '../../server/messages/message-stream-events';
import { SseDecoder } from '../../server/streaming/parse-sse';

function decode(text: string): { event: string | null; data: Record<string, unknown> }[] {
  return new SseDecoder()
    .decode(Buffer.from(text))
    .map((event) => ({ event: event.event, data: JSON.parse(event.data) as Record<string, unknown> }));
}

describe('MessageStreamTranslator', () => {
  it('opens a new block when text follows a tool call, numbers blocks in order, closes each once', () => {
    const translator = new MessageStreamTranslator({ id: 'msg_1', model: 'cat-id', inputTokens: 7 });
    let text = translator.start();
    text += translator.push(chatChunk({ role: 'assistant', content: '' }));
    text += translator.push(chatChunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }] }));
    text += translator.push(
      chatChunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{"x":1}' } }] }),
    );
    text += translator.push(chatChunk({ content: 'done' }, 'tool_calls'));
    text += translator.finish({ promptTokens: 9, completionTokens: 4 });
    const events = decode(text);
    expect(events.map((event) => [event.event, event.data.index ?? null])).toEqual([
      ['message_start', null],
      ['ping', null],
      ['content_block_start', 0],
      ['content_block_stop', 0],
      ['content_block_start', 1],
      ['content_block_delta', 1],
      ['content_block_stop', 1],
      ['content_block_start', 2],
      ['content_block_delta', 2],
      ['content_block_stop', 2],
      ['message_delta', null],
      ['message_stop', null],
    ]);
    expect(events[0]?.data.message).toMatchObject({ id: 'msg_1', model: 'cat-id', usage: { input_tokens: 7, output_tokens: 0 } });
    expect(events[2]?.data.content_block).toEqual({ type: 'tool_use', id: 'a', name: 'f', input: {} });
    expect(events[5]?.data.delta).toEqual({ type: 'input_json_delta', partial_json: '{"x":1}' });
    expect(events[10]?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 9, output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it('sends nothing for the usage chunk and maps finish reasons', () => {
    const translator = new MessageStreamTranslator({ id: 'msg_2', model: 'm', inputTokens: 1 });
    translator.start();
    translator.push(chatChunk({ content: 'x' }, 'length'));
    expect(translator.push({ ...chatChunk({}), choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } })).toBe('');
    const end = decode(translator.finish({ promptTokens: 3, completionTokens: 1 }));
    expect(end.find((event) => event.event === 'message_delta')?.data.delta).toEqual({ stop_reason: 'max_tokens', stop_sequence: null });
  });

  it('ends an empty reply with no block at all', () => {
    const translator = new MessageStreamTranslator({ id: 'msg_3', model: 'm', inputTokens: 1 });
    const events = decode(
      translator.start() + translator.push(chatChunk({}, 'content_filter')) + translator.finish({ promptTokens: 1, completionTokens: 0 }),
    );
    expect(events.map((event) => event.event)).toEqual(['message_start', 'ping', 'message_delta', 'message_stop']);
    expect(events[2]?.data.delta).toMatchObject({ stop_reason: 'refusal' });
  });
});
