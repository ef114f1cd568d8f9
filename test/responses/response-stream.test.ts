import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../contract';
import { responseSkeleton, toResponsesUsage } from '../../server/responses/chat-to-response';
import { ResponseStreamTranslator } from '../../server/responses/response-stream';
import { chatChunk } from '../fixtures/chat-chunk';

function translator(customTools: string[] = []) {
  let id = 0;
  const skeleton = responseSkeleton({ model: 'm', input: 'x' }, 'resp_1', 'm', 1_767_225_600);
  return new ResponseStreamTranslator(skeleton, new Set(customTools), () => String(++id));
}

const usage = toResponsesUsage({ promptTokens: 5, completionTokens: 3, cachedTokens: 2 });

type StreamEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/** The SSE text's events, each checked to name its own type and to be written as JSON.stringify writes it. */
function parse(text: string): StreamEvent[] {
  if (text === '') return [];
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const [name, data, ...rest] = block.split('\n');
      expect(rest).toEqual([]);
      const event = JSON.parse((data ?? '').replace(/^data: /, '')) as StreamEvent;
      expect(name).toBe(`event: ${event.type}`);
      expect(data).toBe(`data: ${JSON.stringify(event)}`);
      return event;
    });
}

function run(stream: ResponseStreamTranslator, chunks: ChatCompletionChunk[]): StreamEvent[] {
  return parse(stream.start() + chunks.map((item) => stream.push(item)).join('') + stream.finish(usage));
}

describe('ResponseStreamTranslator', () => {
  it('text then a tool call: two items, each closed in output order, sequence numbers without gaps', () => {
    const events = run(translator(), [
      chatChunk({ role: 'assistant', content: 'Let me check.' }),
      chatChunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
      chatChunk({}, 'tool_calls'),
    ]);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const completed = events.at(-1) as StreamEvent & { response: { status: string; output: unknown[]; usage: unknown } };
    expect(completed.response.status).toBe('completed');
    expect(completed.response.usage).toEqual(usage);
    expect(completed.response.output).toEqual([
      {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Let me check.', annotations: [], logprobs: [] }],
      },
      { type: 'function_call', id: 'fc_2', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' },
    ]);
    expect(events[1]).toMatchObject({ response: { status: 'in_progress', output: [] } });
  });

  it("a custom tool's call comes back as custom_tool_call with the string inside the arguments", () => {
    const events = run(translator(['apply_patch']), [
      chatChunk({
        tool_calls: [{ index: 0, id: 'call_p', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin' } }],
      }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: ' Patch"}' } }] }),
      chatChunk({}, 'tool_calls'),
    ]);
    expect(events.map((event) => event.type)).toContain('response.custom_tool_call_input.done');
    expect(events.some((event) => event.type === 'response.function_call_arguments.delta')).toBe(false);
    const done = events.find((event) => event.type === 'response.output_item.done');
    expect(done).toMatchObject({ item: { type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: '*** Begin Patch' } });
  });

  it('deltas with quotes, line breaks and non-ASCII text arrive intact; the done events and the response repeat the whole text', () => {
    let id = 0;
    const skeleton = responseSkeleton({ model: 'm', input: 'x', reasoning: { summary: 'auto' } }, 'resp_1', 'm', 1_767_225_600);
    const stream = new ResponseStreamTranslator(skeleton, new Set(), () => String(++id), true);
    const pieces = ['Say "hi"', '\n\tthen \\ ', 'é 😀 \u2028', '</script>'];
    const events = run(stream, [
      chatChunk({ reasoning_content: 'Think "first".' }),
      ...pieces.map((content) => chatChunk({ content })),
      chatChunk({}, 'stop'),
    ]);
    const deltas = events.filter((event) => event.type === 'response.output_text.delta');
    expect(deltas.map((event) => event.delta)).toEqual(pieces);
    expect(deltas[0]).toEqual({
      type: 'response.output_text.delta',
      sequence_number: 7,
      item_id: 'msg_2',
      output_index: 1,
      content_index: 0,
      delta: 'Say "hi"',
      logprobs: [],
    });
    expect(events.find((event) => event.type === 'response.reasoning_summary_text.delta')).toEqual({
      type: 'response.reasoning_summary_text.delta',
      sequence_number: 4,
      item_id: 'rs_1',
      output_index: 0,
      summary_index: 0,
      delta: 'Think "first".',
    });
    expect(events.find((event) => event.type === 'response.output_text.done')).toMatchObject({ text: pieces.join('') });
    expect(events.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { output: [{ summary: [{ text: 'Think "first".' }] }, { content: [{ text: pieces.join('') }] }] },
    });
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  });

  it('finish_reason length ends with response.incomplete (max_output_tokens)', () => {
    const events = run(translator(), [chatChunk({ content: 'cut' }), chatChunk({}, 'length')]);
    expect(events.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
  });

  it('a failure after the start is one response.failed event, and nothing after it', () => {
    const stream = translator();
    stream.start();
    stream.push(chatChunk({ content: 'part' }));
    const failed = parse(stream.fail('upstream_unavailable', 'The provider dropped the connection.'));
    expect(failed).toEqual([
      expect.objectContaining({
        type: 'response.failed',
        response: expect.objectContaining({
          status: 'failed',
          error: { code: 'upstream_unavailable', message: 'The provider dropped the connection.' },
        }),
      }),
    ]);
    expect(stream.fail('again', 'again')).toBe('');
    expect(stream.outputText()).toBe('part');
  });
});
