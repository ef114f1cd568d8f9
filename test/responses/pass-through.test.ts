import { describe, expect, it } from 'vitest';
import { replyOutputText } from '../../server/completions/reply-output-text';
import { RESPONSES_OUTPUT_TEXT, ResponsesUsageReader } from '../../server/responses/pass-through';
import { SseEventScanner } from '../../server/streaming/sse-event-scanner';
import { responseUsage, textResponse } from '../helpers/mock-openai-responses';

/** The usage a reader finds in a whole (non-streamed) reply. */
function usageOfReplyText(text: string) {
  const reader = new ResponsesUsageReader();
  reader.readReply(text);
  return reader.tokens();
}

describe('pass-through usage', () => {
  it('reads usage from a JSON reply, and none from garbage', () => {
    expect(usageOfReplyText(JSON.stringify(textResponse('m', 'x', { input: 10, output: 2, cached: 4, reasoning: 1 })))).toEqual({
      promptTokens: 10,
      completionTokens: 2,
      cachedTokens: 4,
      reasoningTokens: 1,
    });
    expect(usageOfReplyText('<html>')).toBeNull();
    expect(usageOfReplyText('{"usage":{"input_tokens":-1,"output_tokens":"2"}}')).toBeNull();
  });

  it('reads the final usage from the text split anywhere; the output deltas count when no usage came', () => {
    const text =
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"h\u00e9"}\n\n' +
      `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { usage: responseUsage({ input: 7, output: 3 }) } })}\n\n`;
    const reader = new ResponsesUsageReader();
    const scanner = new SseEventScanner(reader.eventNames, (name, data) => reader.readEvent(name, data));
    for (let start = 0; start < text.length; start += 5) scanner.scan(text.slice(start, start + 5));
    scanner.end();
    expect(reader.completed).toBe(true);
    expect(reader.tokens()).toEqual({ promptTokens: 7, completionTokens: 3, cachedTokens: 0, reasoningTokens: 0 });
    expect(replyOutputText(text, true, RESPONSES_OUTPUT_TEXT)).toBe('h\u00e9');
  });

  it('a stream without a final event is not ended; malformed events are ignored', () => {
    const scan = (text: string): ResponsesUsageReader => {
      const reader = new ResponsesUsageReader();
      new SseEventScanner(reader.eventNames, (name, data) => reader.readEvent(name, data)).scan(text);
      return reader;
    };
    const reader = scan('data: {not json\r\n\r\ndata: "string"\n\ndata: {"type":"response.completed","response":null}\n\n');
    expect(reader.completed).toBe(true);
    expect(reader.tokens()).toBeNull();
    expect(scan('data: {"type":"response.created"}\n\n').completed).toBe(false);
    expect(scan('event: response.created\ndata: {"type":"response.completed"}\n\n').completed).toBe(false);
  });
});
