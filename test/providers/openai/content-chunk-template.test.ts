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
/** OpenAI's padding member (`stream_options.include_obfuscation`), last, different on every event. */
const padded = (text: string, padding: string): string => JSON.stringify({ ...chunk({ content: text }), obfuscation: padding });
const padding = fc.stringMatching(/^[A-Za-z0-9]{0,16}$/);
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
    const paddedTemplate = ContentChunkTemplate.learn(padded('Hello', 'yBUv8b1dlI5ORP'), mapped('Hello'));
    fc.assert(
      fc.property(content, padding, (text, noise) => {
        expect(paddedTemplate?.contentOf(padded(text, noise))).toBe(text);
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

  it('with a padding member, never reads an event differently from JSON.parse either', () => {
    const learned = padded('Hello', 'yBUv8b1dlI5ORP');
    const template = ContentChunkTemplate.learn(learned, mapped('Hello'));
    const [before, rest] = learned.split('"Hello"') as [string, string];
    const between = rest.slice(0, rest.indexOf('"yBUv8b1dlI5ORP"'));
    const middle = fc.oneof(
      content.map((text) => JSON.stringify(text)),
      fc.constantFrom('"a","obfuscation":"b"', '"a\\"b"', '"'),
    );
    const tail = fc.oneof(
      padding.map((noise) => `"${noise}"}`),
      fc.string().map((text) => `${text}}`),
      fc.constantFrom('"a","x":"b"}', '"a"},"obfuscation":"c"}', '"a\\"b"}', '"a"} ', '"\u0001"}', '"\\u0041"}', '"}'),
    );
    fc.assert(
      fc.property(middle, tail, (inside, end) => {
        const event = `${before}${inside}${between}${end}`;
        const read = template?.contentOf(event) ?? null;
        if (read === null) return;
        const parsed = JSON.parse(event) as { obfuscation: unknown };
        expect(typeof parsed.obfuscation).toBe('string');
        const expected = JSON.parse(learned) as { choices: [{ delta: { content: string } }]; obfuscation: unknown };
        expected.choices[0].delta.content = read;
        expected.obfuscation = parsed.obfuscation;
        expect(parsed).toEqual(expected);
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
        const events = (variant: 'plain' | 'padded' | 'full') => [
          JSON.stringify(chunk({ role: 'assistant', content: '' })),
          ...texts.map((text, index) => {
            if (variant === 'padded') return padded(text, `pad${index}`);
            // A member before the content that changes with every event keeps the template from matching: the full path.
            if (variant === 'full') return JSON.stringify({ service_tier: `tier${index}`, ...chunk({ content: text }) });
            return JSON.stringify(chunk({ content: text }));
          }),
          JSON.stringify(chunk({}, 'stop')),
          JSON.stringify(usageChunk()),
        ];
        const full = await mapStream(events('full'));
        expect(await mapStream(events('plain'))).toEqual(full);
        expect(await mapStream(events('padded'))).toEqual(full);
        expect(full.map((item) => item.choices[0]?.delta.content ?? null)).toEqual(['', ...texts, null, null]);
      }),
      { numRuns: 60 },
    );
  });
});
