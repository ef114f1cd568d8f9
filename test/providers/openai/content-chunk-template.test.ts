import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../../contract';
import { ContentChunkTemplate } from '../../../server/providers/openai/content-chunk-template';
import { openAiChunkBatches } from '../../../server/providers/openai/openai-stream';
import { chunk, usageChunk } from '../../fixtures/openai/openai-bodies';
import { chatTarget } from './harness';

const ids = { now: () => 0, generateId: () => 'generated' };
const context = { provider: 'openai', apiKey: 'sk-test', target: chatTarget, ids };

/** The chunks the adapter makes of an upstream body of `data:` events. */
async function mapStream(events: string[]): Promise<ChatCompletionChunk[]> {
  const text = `${events.map((data) => `data: ${data}\n\n`).join('')}data: [DONE]\n\n`;
  const body = (async function* () {
    yield Buffer.from(text);
  })();
  const chunks: ChatCompletionChunk[] = [];
  for await (const batch of openAiChunkBatches({ body, finish: () => undefined }, context)) chunks.push(...batch);
  return chunks;
}

/** A content string of any kind: quotes, backslashes, control characters, astral and non-Latin text. */
const content = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ minLength: 13, maxLength: 40 }),
  fc.constantFrom('"', '\\', '\n', '\u2028', '😀', '', ' "x"', 'a plain sentence of some length'),
);

const CONTENT_EVENT = JSON.stringify(chunk({ content: 'Hello' }));
const mapped = (text: string): ChatCompletionChunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-catalogue',
  choices: [{ index: 0, delta: { content: text }, finish_reason: null, logprobs: null }],
});

describe('content chunk template', () => {
  it('reads the content of an event that differs from the learned one only in its content string', () => {
    const template = ContentChunkTemplate.learn(CONTENT_EVENT, mapped('Hello'));
    expect(template).not.toBeNull();
    fc.assert(
      fc.property(content, (text) => {
        expect(template?.contentOf(JSON.stringify(chunk({ content: text })))).toBe(text);
      }),
    );
  });

  it('never reads an event differently from JSON.parse: what it reads is that event with only the content changed', () => {
    const template = ContentChunkTemplate.learn(CONTENT_EVENT, mapped('Hello'));
    const [before, after] = CONTENT_EVENT.split('"Hello"') as [string, string];
    const middle = fc.oneof(
      content.map((text) => JSON.stringify(text)),
      fc.string(),
      fc.constantFrom('"a","x":1', '"a"},"y":{"z":"b"', '"\\"', '"a\\"b"', '"\u0001"', '"\\u0041"', '"a" ', '""', '"'),
    );
    fc.assert(
      fc.property(middle, fc.constantFrom('', ' ', 'x', '}'), fc.boolean(), (inside, extra, atEnd) => {
        const event = atEnd ? `${before}${inside}${after}${extra}` : `${extra}${before}${inside}${after}`;
        const read = template?.contentOf(event) ?? null;
        if (read === null) return;
        const expected = JSON.parse(CONTENT_EVENT) as { choices: [{ delta: { content: string } }] };
        expected.choices[0].delta.content = read;
        expect(JSON.parse(event)).toEqual(expected);
      }),
    );
  });

  it('learns only a lone content delta whose place in the text is certain', () => {
    const learn = (event: unknown, text = 'Hello', shape: Partial<ChatCompletionChunk['choices'][number]> = {}) => {
      const base = mapped(text);
      return ContentChunkTemplate.learn(JSON.stringify(event), { ...base, choices: [{ ...base.choices[0]!, ...shape }] });
    };
    expect(learn(chunk({ content: 'Hello' }))).not.toBeNull();
    // Escaped differently from JSON.stringify, or "content" twice: the place is not certain.
    expect(ContentChunkTemplate.learn(CONTENT_EVENT.replace('"Hello"', '"\\u0048ello"'), mapped('Hello'))).toBeNull();
    expect(learn({ ...chunk({ content: 'Hello' }), extra: { content: 'Hello' } })).toBeNull();
    // A duplicate key the parser keeps instead: the probe shows the text's string is not the delta's.
    const shadowed = CONTENT_EVENT.replace('"choices":', '"choices":[{"index":0,"delta":{"content":"Hello"}}],"choices":').replace(
      '"delta":{"content":"Hello"},"logprobs"',
      '"delta":{"cont\\u0065nt":"Hello"},"logprobs"',
    );
    expect(ContentChunkTemplate.learn(shadowed, mapped('Hello'))).toBeNull();
    // Not a lone content delta: role, finish, logprobs, two choices.
    expect(learn(chunk({ content: 'Hello' }), 'Hello', { delta: { role: 'assistant', content: 'Hello' } })).toBeNull();
    expect(learn(chunk({ content: 'Hello' }, 'stop'), 'Hello', { finish_reason: 'stop' })).toBeNull();
    expect(learn(chunk({ content: 'Hello' }), 'Hello', { logprobs: { content: [] } })).toBeNull();
    expect(
      ContentChunkTemplate.learn(CONTENT_EVENT, { ...mapped('Hello'), choices: [...mapped('a').choices, ...mapped('b').choices] }),
    ).toBeNull();
  });

  it('gives a stream the same chunks as the full path, whatever the content', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(content, { minLength: 1, maxLength: 8 }), async (texts) => {
        const events = (obfuscated: boolean) => [
          JSON.stringify(chunk({ role: 'assistant', content: '' })),
          // A field that changes with every event keeps the template from matching: the full path.
          ...texts.map((text, index) =>
            JSON.stringify({ ...chunk({ content: text }), ...(obfuscated ? { obfuscation: `x${index}` } : {}) }),
          ),
          JSON.stringify(chunk({}, 'stop')),
          JSON.stringify(usageChunk()),
        ];
        const fast = await mapStream(events(false));
        expect(fast).toEqual(await mapStream(events(true)));
        expect(fast.map((item) => item.choices[0]?.delta.content ?? null)).toEqual(['', ...texts, null, null]);
      }),
      { numRuns: 60 },
    );
  });
});
