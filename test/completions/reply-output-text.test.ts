import { describe, expect, it } from 'vitest';
import { replyOutputText } from '../../server/completions/reply-output-text';
import { MESSAGES_OUTPUT_TEXT } from '../../server/messages/pass-through-message';
import { RESPONSES_OUTPUT_TEXT } from '../../server/responses/pass-through';
import { encodeSseEvent, events, messageBody } from '../helpers/mock-anthropic-upstream';

/* docs/rate-limits.md, "The reply's estimate": what a passed-through reply generated, whatever its format. */
const sse = (values: { type: string }[]): string =>
  values.map((value) => `event: ${value.type}\ndata: ${JSON.stringify(value)}\n\n`).join('');

describe('replyOutputText', () => {
  it('a Message: its text, thinking and tool input; in a stream, the blocks\u2019 deltas', () => {
    const message = messageBody(
      [
        { type: 'thinking', thinking: 'Hmm. ', signature: 'sig' },
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { city: 'Paris' } },
      ],
      'tool_use',
    );
    expect(replyOutputText(JSON.stringify(message), false, MESSAGES_OUTPUT_TEXT)).toBe('Hmm. Let me look.{"city":"Paris"}');
    const stream = [
      events.messageStart(10),
      events.textStart(0),
      events.ping(),
      events.textDelta(0, 'Hel'),
      events.textDelta(0, 'lo'),
      events.blockStop(0),
      events.toolStart(1, 'toolu_1', 'lookup'),
      events.jsonDelta(1, '{"city":'),
      events.jsonDelta(1, '"Paris"}'),
      events.blockStop(1),
    ];
    expect(replyOutputText(stream.map(encodeSseEvent).join(''), true, MESSAGES_OUTPUT_TEXT)).toBe('Hello{"city":"Paris"}');
  });

  it('a Response: its output text, refusals, reasoning summaries and function-call arguments; in a stream, the deltas', () => {
    const response = {
      object: 'response',
      output: [
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think. ' }] },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Hi ', annotations: [] },
            { type: 'refusal', refusal: 'no.' },
          ],
        },
        { type: 'function_call', name: 'lookup', call_id: 'call_1', arguments: '{"q":1}' },
      ],
    };
    expect(replyOutputText(JSON.stringify(response), false, RESPONSES_OUTPUT_TEXT)).toBe('Think. Hi no.{"q":1}');
    const stream = sse([
      { type: 'response.created' },
      { type: 'response.output_text.delta', delta: 'Hé' } as { type: string },
      { type: 'response.function_call_arguments.delta', delta: '{}' } as { type: string },
      { type: 'response.output_text.done', text: 'Hé' } as { type: string },
    ]);
    expect(replyOutputText(stream, true, RESPONSES_OUTPUT_TEXT)).toBe('Hé{}');
  });

  it('text that is not JSON, or events that are not, count nothing', () => {
    expect(replyOutputText('<html>oops</html>', false, MESSAGES_OUTPUT_TEXT)).toBe('');
    expect(replyOutputText('data: not json\n\ndata: [DONE]\n\n', true, RESPONSES_OUTPUT_TEXT)).toBe('');
  });
});
