import { describe, expect, it } from 'vitest';
import { plainTextDelta } from '../../../server/providers/bedrock/converse-text-delta';

/**
 * The text delta read without JSON.parse (server/providers/bedrock/converse-text-delta.ts):
 * whatever it reads is what JSON.parse reads, and anything it is not sure of is left to it.
 */
function parsedText(payload: string): string | undefined {
  const value = JSON.parse(payload) as { delta?: { text?: unknown } };
  return typeof value.delta?.text === 'string' ? value.delta.text : undefined;
}

describe('ConverseStream text deltas read without JSON.parse', () => {
  it('reads the text of a plain text delta, with or without the padding member', () => {
    const payloads = [
      '{"contentBlockIndex":0,"delta":{"text":"Hello"}}',
      '{"contentBlockIndex":12,"delta":{"text":" wörld, 你好 🙂"}}',
      '{"contentBlockIndex":0,"delta":{"text":""}}',
      '{"contentBlockIndex":0,"delta":{"text":"I"},"p":"abcdefghijklmnopqrstuvwxyz"}',
      '{"contentBlockIndex":3,"delta":{"text":"a longer piece of text, over thirteen characters"},"p":"abc"}',
      '{"contentBlockIndex":0,"delta":{"text":"x"},"p":""}',
    ];
    for (const payload of payloads) {
      expect(plainTextDelta(payload)).toBe(parsedText(payload));
    }
  });

  it.each([
    {
      expected: 'leaves to JSON.parse whatever is not exactly a plain text delta',
      payloads: [
        '{"contentBlockIndex":0,"delta":{"text":"a \\"quote\\""}}',
        '{"contentBlockIndex":0,"delta":{"text":"line\\nbreak"}}',
        '{"contentBlockIndex":0,"delta":{"text":"\\u00e9"}}',
        '{"contentBlockIndex":0,"delta":{"text":"back\\\\slash"}}',
        '{"contentBlockIndex":0,"delta":{"text":"ok"},"p":"a\\"b"}',
        '{"contentBlockIndex":0,"delta":{"text":"ok","extra":1}}',
        '{"contentBlockIndex":0,"delta":{"text":"ok"},"other":"x"}',
        '{"contentBlockIndex":0,"delta":{"text":"ok"},"p":"abc","q":"d"}',
        '{"delta":{"text":"ok"},"contentBlockIndex":0}',
        '{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"Hmm"}}}',
        '{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\\"a\\":1}"}}}',
        '{"contentBlockIndex": 0,"delta":{"text":"ok"}}',
        '{"contentBlockIndex":0,"delta":{"text":"ok"}} ',
        '{"contentBlockIndex":0,"delta":{"text":"ok"}}}',
      ],
    },
    {
      expected: 'reads nothing of a payload that is not JSON, so the parser refuses it',
      payloads: [
        '{"contentBlockIndex":,"delta":{"text":"ok"}}',
        '{"contentBlockIndex":01,"delta":{"text":"ok"}}',
        '{"contentBlockIndex":-1,"delta":{"text":"ok"}}',
        '{"contentBlockIndex":0,"delta":{"text":"ok}}',
        '{"contentBlockIndex":0,"delta":{"text":"ok"}',
        '{"contentBlockIndex":0,"delta":{"text":"tab\there"}}',
        '{"contentBlockIndex":0,"delta":{"text":"ok"},"p":"abc}',
        '{"contentBlockIndex":0',
      ],
    },
  ])('$expected', ({ payloads }) => {
    for (const payload of payloads) {
      expect(plainTextDelta(payload)).toBeNull();
    }
  });
});
