import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseOpenAiChatCompletion, parseOpenAiChunk, parseOpenAiEmbeddings } from '../../../server/providers/openai/openai-guards';
import { OpenAiChatCompletionSchema, OpenAiChunkSchema, OpenAiEmbeddingsSchema } from '../../../server/providers/openai/openai-schemas';
import {
  chatCompletionBody,
  embeddingsBody,
  textStream,
  toolCallCompletionBody,
  toolCallStream,
} from '../../fixtures/openai/openai-bodies';

/** A guard passed the value when it comes back as the same object (zod always builds a new one). */
const passedByGuard = (result: { success: boolean; data?: unknown }, value: unknown): boolean => result.success && result.data === value;

/**
 * Values shaped like each schema, with any field replaced now and then by an odd value (a
 * wrong type, a fraction, NaN, an empty object), so that both sides of every check occur.
 */
const leaf = fc.oneof(
  fc.constantFrom(null, undefined, 'function', 'text', 'stop', '', 0, 1, -1, 2.5, Number.NaN, true),
  fc.string({ maxLength: 3 }),
  fc.constant({}),
  fc.constant([]),
);
/** Mostly what the schema asks for, now and then anything. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 12, arbitrary }, { weight: 1, arbitrary: leaf });
const nullable = <T>(arbitrary: fc.Arbitrary<T>) => maybe(fc.oneof(arbitrary, fc.constantFrom(null, undefined)));
const text = nullable(fc.string({ maxLength: 3 }));
const integer = nullable(fc.integer({ min: -2, max: 3 }));
const count = nullable(fc.nat(5));
const fields = (shape: Record<string, fc.Arbitrary<unknown>>) => maybe(fc.record(shape, { requiredKeys: [] }));
const list = (item: fc.Arbitrary<unknown>, minLength = 0) => maybe(fc.array(item, { minLength, maxLength: 2 }));
const usage = nullable(fields({ prompt_tokens: count, completion_tokens: count, total_tokens: count }));
const content = nullable(
  fc.oneof(
    fc.string(),
    fc.array(fields({ type: maybe(fc.string()), text: maybe(fc.option(fc.string(), { nil: undefined })) }), { maxLength: 2 }),
  ),
);
const functionType = nullable(fc.constant('function'));
const functionCall = fields({ name: text, arguments: nullable(fc.oneof(fc.string(), fc.dictionary(fc.string(), leaf))) });
const completion = fields({
  id: text,
  object: text,
  created: nullable(fc.double({ noNaN: true })),
  choices: list(
    fields({
      index: integer,
      message: fields({
        role: text,
        content,
        tool_calls: nullable(list(fields({ id: text, type: functionType, function: functionCall }))),
        refusal: text,
      }),
      finish_reason: text,
      logprobs: leaf,
    }),
    1,
  ),
  usage,
  system_fingerprint: text,
});
const chunk = fields({
  id: text,
  created: nullable(fc.integer()),
  choices: nullable(
    list(
      fields({
        index: integer,
        delta: nullable(
          fields({
            role: text,
            content,
            tool_calls: nullable(list(fields({ index: integer, id: text, type: functionType, function: nullable(functionCall) }))),
            refusal: text,
          }),
        ),
        finish_reason: text,
      }),
    ),
  ),
  usage,
  x_groq: nullable(fields({ usage })),
  system_fingerprint: text,
});
const embeddings = fields({
  data: list(fields({ index: count, embedding: maybe(fc.oneof(fc.string(), fc.array(maybe(fc.double()), { maxLength: 3 }))) }), 1),
  usage,
});

describe('the compiled checks of the OpenAI upstream schemas', () => {
  it('pass the recorded bodies (the fast path is the common one)', () => {
    for (const body of [chatCompletionBody(), toolCallCompletionBody()])
      expect(passedByGuard(parseOpenAiChatCompletion(body), body)).toBe(true);
    for (const body of [...textStream(), ...toolCallStream()]) expect(passedByGuard(parseOpenAiChunk(body), body)).toBe(true);
    const embeddings = embeddingsBody();
    expect(passedByGuard(parseOpenAiEmbeddings(embeddings), embeddings)).toBe(true);
  });

  it('never pass a value their zod schema refuses', () => {
    const cases = [
      { parse: parseOpenAiChatCompletion, schema: OpenAiChatCompletionSchema, values: completion },
      { parse: parseOpenAiChunk, schema: OpenAiChunkSchema, values: chunk },
      { parse: parseOpenAiEmbeddings, schema: OpenAiEmbeddingsSchema, values: embeddings },
    ];
    for (const { parse, schema, values } of cases) {
      let passed = 0;
      fc.assert(
        fc.property(values, (value) => {
          const result = parse(value);
          if (passedByGuard(result, value)) passed++;
          // Either way the answer is zod's.
          expect(result.success).toBe(schema.safeParse(value).success);
        }),
        { numRuns: 3000 },
      );
      // Not vacuous: a good share of the generated values are valid and took the fast path.
      expect(passed).toBeGreaterThan(300);
    }
  });

  it('refuse what zod refuses, with zod describing the failure', () => {
    const body = chatCompletionBody();
    (body.choices as Array<Record<string, unknown>>)[0]!.index = 0.5;
    const result = parseOpenAiChatCompletion(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['choices', 0, 'index']);
    const chunk = { choices: [{ delta: { tool_calls: [{ type: 'code' }] } }] };
    expect(parseOpenAiChunk(chunk).success).toBe(false);
    expect(parseOpenAiEmbeddings({ data: [{ embedding: [1, '2'] }] }).success).toBe(false);
  });
});
