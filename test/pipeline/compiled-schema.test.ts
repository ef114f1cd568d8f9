import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChatCompletionRequestSchema, contract, EmbeddingsRequestSchema } from '../../contract';
import { compileBodySchema, compileFastAccept } from '../../server/pipeline/compiled-schema';

const isPlainChatRequest = compileFastAccept(ChatCompletionRequestSchema);
const isPlainEmbeddingsRequest = compileFastAccept(EmbeddingsRequestSchema);
const validateChatRequest = compileBodySchema(ChatCompletionRequestSchema);
const validateEmbeddingsRequest = compileBodySchema(EmbeddingsRequestSchema);

/** Odd values for any field: wrong types, out-of-range numbers, fractions, empty strings, NaN. */
const odd = fc.oneof(
  fc.constantFrom(null, undefined, true, '', 'auto', 'text', 'function', 0, -1, 0.5, 3, 200, Number.NaN, {}, [], ['a', 'b', 'c', 'd', 'e']),
  fc.string({ maxLength: 3 }),
);
/** Mostly what the schema asks for, now and then anything; sometimes with a key zod would strip. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 30, arbitrary }, { weight: 1, arbitrary: odd });
const fields = (shape: Record<string, fc.Arbitrary<unknown>>, required: string[] = []) =>
  maybe(
    fc
      .tuple(
        fc.record(shape, { requiredKeys: required }),
        fc.oneof({ weight: 40, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('extra', '__proto__') }),
      )
      // Through JSON, as a request body arrives: `__proto__` is then a plain own key.
      .map(([value, extra]) => (extra === null ? value : (JSON.parse(JSON.stringify({ ...value, [extra]: 1 })) as unknown))),
  );
const optional = <T>(arbitrary: fc.Arbitrary<T>) => maybe(fc.option(arbitrary, { nil: undefined }));
const nullable = <T>(arbitrary: fc.Arbitrary<T>) => maybe(fc.oneof(arbitrary, fc.constantFrom(null, undefined)));
const text = fc.string({ maxLength: 4 });
/** Non-empty, now and then empty (a `min(1)` field). */
const name = fc.oneof({ weight: 15, arbitrary: fc.string({ minLength: 1, maxLength: 4 }) }, { weight: 1, arbitrary: fc.constant('') });
const textPart = fields({ type: fc.constant('text'), text }, ['type', 'text']);
const imagePart = fields(
  {
    type: fc.constant('image_url'),
    image_url: fields({ url: fc.string({ minLength: 1, maxLength: 4 }), detail: optional(fc.constantFrom('auto', 'low', 'high')) }, [
      'url',
    ]),
  },
  ['type', 'image_url'],
);
const textContent = maybe(fc.oneof(text, fc.array(textPart, { minLength: 1, maxLength: 2 })));
const userContent = maybe(fc.oneof(text, fc.array(fc.oneof(textPart, imagePart), { minLength: 1, maxLength: 2 })));
const toolCall = fields(
  { id: text, type: fc.constant('function'), function: fields({ name: text, arguments: text }, ['name', 'arguments']) },
  ['id', 'type', 'function'],
);
const message = fc.oneof(
  fields({ role: fc.constantFrom('system', 'developer'), content: textContent, name: optional(text) }, ['role', 'content']),
  fields({ role: fc.constant('user'), content: userContent, name: optional(text) }, ['role', 'content']),
  fields(
    {
      role: fc.constant('assistant'),
      content: nullable(textContent),
      tool_calls: optional(fc.array(toolCall, { maxLength: 2 })),
      refusal: nullable(text),
    },
    ['role'],
  ),
  fields({ role: fc.constant('tool'), content: textContent, tool_call_id: text }, ['role', 'content', 'tool_call_id']),
);
const record = maybe(
  fc.dictionary(fc.constantFrom('type', 'properties', 'x', 'y', 'z', '__proto__'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);
const tool = fields(
  {
    type: fc.constant('function'),
    function: fields({ name: name, description: optional(text), parameters: optional(record), strict: nullable(fc.boolean()) }, ['name']),
  },
  ['type', 'function'],
);
const chatRequest = fields(
  {
    model: name,
    messages: maybe(fc.array(message, { minLength: 1, maxLength: 3 })),
    temperature: nullable(fc.double({ min: -0.2, max: 2.2, noNaN: true })),
    top_p: nullable(fc.double({ min: -0.1, max: 1.1, noNaN: true })),
    max_tokens: nullable(fc.integer({ min: -1, max: 5000 })),
    max_completion_tokens: nullable(fc.integer({ min: 0, max: 10 })),
    stream: nullable(fc.boolean()),
    stream_options: nullable(fields({ include_usage: optional(fc.boolean()) })),
    stop: nullable(fc.oneof(text, fc.array(text, { maxLength: 4 }), fc.constant(['a', 'b', 'c', 'd', 'e']))),
    presence_penalty: nullable(fc.double({ min: -2.2, max: 2.2, noNaN: true })),
    frequency_penalty: nullable(fc.double({ min: -2.2, max: 2.2, noNaN: true })),
    tools: nullable(fc.array(tool, { maxLength: 2 })),
    tool_choice: nullable(
      fc.oneof(
        fc.constantFrom('none', 'auto', 'required'),
        fields({ type: fc.constant('function'), function: fields({ name: text }, ['name']) }, ['type', 'function']),
      ),
    ),
    parallel_tool_calls: nullable(fc.boolean()),
    response_format: nullable(
      fc.oneof(
        fields({ type: fc.constantFrom('text', 'json_object') }, ['type']),
        fields(
          {
            type: fc.constant('json_schema'),
            json_schema: fields({ name: text, description: optional(text), schema: optional(record), strict: nullable(fc.boolean()) }, [
              'name',
            ]),
          },
          ['type', 'json_schema'],
        ),
      ),
    ),
    seed: nullable(fc.integer()),
    user: nullable(text),
    n: nullable(fc.integer({ min: 0, max: 130 })),
    logprobs: optional(fc.boolean()),
  },
  ['model', 'messages'],
);
const embeddingsRequest = fields(
  {
    model: name,
    input: maybe(fc.oneof(text, fc.array(text, { maxLength: 3 }))),
    encoding_format: optional(fc.constantFrom('float', 'base64')),
    dimensions: optional(fc.integer({ min: 0, max: 3000 })),
    user: optional(text),
    extra_field: optional(fc.jsonValue({ maxDepth: 1 })),
  },
  ['model', 'input'],
);

describe('the contract schemas compiled for the hot request bodies', () => {
  const cases = [
    { name: 'chat', check: isPlainChatRequest, schema: ChatCompletionRequestSchema, values: chatRequest },
    { name: 'embeddings', check: isPlainEmbeddingsRequest, schema: EmbeddingsRequestSchema, values: embeddingsRequest },
  ] as const;

  for (const { name, check, schema, values } of cases) {
    it(`${name}: pass only bodies zod accepts and would return as they are`, () => {
      let passed = 0;
      fc.assert(
        fc.property(values, (generated) => {
          // As a body arrives: through JSON (plain objects, no undefined values, NaN as null).
          if (generated === undefined) return;
          const value = JSON.parse(JSON.stringify(generated)) as unknown;
          if (!check(value)) return;
          passed++;
          const parsed = schema.safeParse(value);
          expect(parsed.success).toBe(true);
          // Equal content (zod may order keys differently; nothing reads JSON by key order).
          expect(parsed.data).toStrictEqual(value);
        }),
        { numRuns: 4000 },
      );
      // Not vacuous: a good share of the generated bodies took the fast path.
      expect(passed).toBeGreaterThan(200);
    });
  }

  it('are what the server validates with, and zod still answers the rest', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], custom: { kept: true } };
    const fast = validateChatRequest(body);
    expect(fast.success && fast.data).toBe(body);
    // A nested key zod strips: zod's own output, without it.
    const stripped = validateChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi', extra: 1 }] });
    expect(stripped.success && stripped.data.messages[0]).toEqual({ role: 'user', content: 'hi' });
    const refused = validateEmbeddingsRequest({ model: 'm', input: [] });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['input']);
    // The contract itself (OpenAPI, client) is unchanged.
    expect(contract.chat.create.body).toBe(ChatCompletionRequestSchema);
  });
});

describe('the adjustments of the derived schema', () => {
  const schema = z.object({ name: z.string().max(4), size: z.number().optional() });

  it('a string maximum counts code points, half of it: a string zod may refuse never takes the fast path', () => {
    const accepts = compileFastAccept(schema);
    const validate = compileBodySchema(schema);
    // [value, compiled check, zod]
    const cases: [Record<string, unknown>, boolean, boolean][] = [
      [{ name: 'ab' }, true, true],
      [{ name: '😀' }, true, true],
      [{ name: 'abcd' }, false, true],
      [{ name: '😀😀' }, true, true],
      [{ name: 'a😀' }, true, true],
      [{ name: 'ab😀' }, false, true],
      [{ name: '😀😀😀' }, false, false],
      [{ name: 'abcde' }, false, false],
      [{ name: 'a', size: Number.NaN }, false, false],
    ];
    for (const [value, fast, accepted] of cases) {
      expect(accepts(value)).toBe(fast);
      expect(validate(value).success).toBe(accepted);
    }
  });

  it('refuses unknown keys and __proto__ for bodies passed on, keeps them for readers of its fields', () => {
    const withExtra = { name: 'a', extra: 1 };
    expect(compileFastAccept(schema)(withExtra)).toBe(false);
    expect(compileBodySchema(schema)(withExtra)).toEqual({ success: true, data: { name: 'a' } });
    const proto = JSON.parse('{"name":"a","__proto__":1}') as Record<string, unknown>;
    expect(compileFastAccept(schema)(proto)).toBe(false);
    expect(compileBodySchema(schema)(proto)).toEqual({ success: true, data: { name: 'a' } });
    for (const value of [withExtra, proto]) {
      const kept = compileBodySchema(schema, { unknownKeys: 'kept' })(value);
      expect(kept.success && kept.data).toBe(value);
    }
  });
});
