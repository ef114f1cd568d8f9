import { describe, expect, it } from 'vitest';
import { PassThroughStreamReader, usageOfReplyText } from '../../server/responses/pass-through';
import { responseUsage, textResponse } from '../helpers/mock-openai-responses';

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

  it('passes the bytes on unchanged, split anywhere (even inside a character), and reads the final usage', () => {
    const text =
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"h\u00e9"}\n\n' +
      `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { usage: responseUsage({ input: 7, output: 3 }) } })}\n\n`;
    const bytes = Buffer.from(text);
    const reader = new PassThroughStreamReader();
    let out = '';
    for (let start = 0; start < bytes.length; start += 5) out += reader.read(bytes.subarray(start, start + 5));
    out += reader.end();
    expect(out).toBe(text);
    expect(reader.ended).toBe(true);
    expect(reader.usage).toEqual({ promptTokens: 7, completionTokens: 3, cachedTokens: 0, reasoningTokens: 0 });
    expect(reader.output).toBe('h\u00e9');
  });

  it('a stream without a final event is not ended; malformed events are ignored', () => {
    const reader = new PassThroughStreamReader();
    reader.read(Buffer.from('data: {not json\n\ndata: "string"\n\ndata: {"type":"response.completed","response":null}\n\n'));
    expect(reader.ended).toBe(true);
    expect(reader.usage).toBeNull();
    const open = new PassThroughStreamReader();
    open.read(Buffer.from('data: {"type":"response.created"}\n\n'));
    expect(open.ended).toBe(false);
  });
});
