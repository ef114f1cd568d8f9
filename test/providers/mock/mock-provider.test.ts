import { Ajv } from 'ajv';
import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../../contract';
import { UpstreamError } from '../../../server/errors/gateway-error';
import { createMockProvider } from '../../../server/providers/mock';
import type { HttpClient, ModelTarget, ProviderAdapter } from '../../../server/providers/types';
import { collectAll } from '../../helpers/collect-all';

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const target: ModelTarget = { id: 'mock-chat', upstreamModel: 'mock', defaultMaxTokens: 1024 };
const noNetwork: HttpClient = {
  request: () => Promise.reject(new Error('The mock provider must not use the network.')),
};

function provider(options: Record<string, unknown> = {}): ProviderAdapter {
  let counter = 0;
  return createMockProvider({
    name: 'mock',
    baseUrl: '',
    apiKey: '',
    http: noNetwork,
    now: () => NOW,
    generateId: () => `id${++counter}`,
    options,
  });
}

const call = () => ({ signal: new AbortController().signal, requestId: 'req' });
const ask = (content: string, extra: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest => ({
  model: 'mock-chat',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content },
  ],
  ...extra,
});

describe('mock provider: chat', () => {
  it('answers deterministically from the last user message, with token usage', async () => {
    const { completion, usage } = await provider().chat(ask('What is the weather?'), target, call());
    const content = 'Mock reply to: What is the weather?';
    expect(completion).toEqual({
      id: 'chatcmpl-id1',
      object: 'chat.completion',
      created: Math.floor(NOW / 1000),
      model: 'mock-chat',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: encode('Be brief.').length + encode('What is the weather?').length,
        completion_tokens: encode(content).length,
        total_tokens: expect.any(Number),
      },
    });
    expect(usage).toEqual({ promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens });
    expect((await provider().chat(ask('What is the weather?'), target, call())).completion).toEqual(completion);
  });

  it('quotes at most 200 characters and counts text parts', async () => {
    const long = 'x'.repeat(500);
    const { completion } = await provider().chat(
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: long },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
          },
        ],
      },
      target,
      call(),
    );
    expect(completion.choices[0]?.message.content).toBe(`Mock reply to: ${'x'.repeat(200)}`);
  });

  it('honours max_tokens with finish_reason length', async () => {
    const { completion } = await provider().chat(ask('one two three four five six seven', { max_tokens: 3 }), target, call());
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage.completion_tokens).toBe(3);
    expect(encode(completion.choices[0]?.message.content ?? '').length).toBe(3);
  });

  it('cuts at the first stop sequence', async () => {
    const { completion } = await provider().chat(ask('alpha beta gamma', { stop: ['gamma', 'beta'] }), target, call());
    expect(completion.choices[0]).toMatchObject({ message: { content: 'Mock reply to: alpha ' }, finish_reason: 'stop' });
  });

  it('calls the named tool with arguments that fit its schema', async () => {
    const tools = [
      { type: 'function' as const, function: { name: 'first', parameters: { type: 'object', properties: {} } } },
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: {
            type: 'object',
            properties: {
              city: { type: 'string' },
              unit: { type: 'string', enum: ['c', 'f'] },
              days: { type: 'integer' },
              detail: { type: 'object', properties: { hourly: { type: 'boolean' } } },
            },
          },
        },
      },
    ];
    const { completion } = await provider().chat(
      ask('Weather?', { tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }),
      target,
      call(),
    );
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_id1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"mock","unit":"c","days":1,"detail":{"hourly":true}}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });
    const auto = await provider().chat(ask('Weather?', { tools }), target, call());
    expect(auto.completion.choices[0]?.message.tool_calls?.[0]?.function).toEqual({ name: 'first', arguments: '{}' });
  });

  it('answers with text when tools are off or a tool result came last', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'f' } }];
    const none = await provider().chat(ask('Hi', { tools, tool_choice: 'none' }), target, call());
    expect(none.completion.choices[0]?.finish_reason).toBe('stop');
    const afterTool = await provider().chat(
      {
        model: 'm',
        tools,
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c', content: '42' },
        ],
      },
      target,
      call(),
    );
    expect(afterTool.completion.choices[0]).toMatchObject({ message: { content: 'Mock reply to: Hi' }, finish_reason: 'stop' });
  });

  it('calls a tool after a tool result when the call is forced (required, or a named function)', async () => {
    const tools = [
      { type: 'function' as const, function: { name: 'f' } },
      { type: 'function' as const, function: { name: 'g' } },
    ];
    const messages: ChatCompletionRequest['messages'] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: '42' },
    ];
    for (const [tool_choice, name] of [
      ['required', 'f'],
      [{ type: 'function', function: { name: 'g' } }, 'g'],
    ] as const) {
      const { completion } = await provider().chat({ model: 'm', tools, tool_choice, messages }, target, call());
      expect(completion.choices[0]?.finish_reason, JSON.stringify(tool_choice)).toBe('tool_calls');
      expect(completion.choices[0]?.message.tool_calls?.[0]?.function.name).toBe(name);
    }
  });

  it('answers valid JSON in JSON mode', async () => {
    for (const response_format of [{ type: 'json_object' as const }, { type: 'json_schema' as const, json_schema: { name: 'r' } }]) {
      const { completion } = await provider().chat(ask('Give JSON', { response_format }), target, call());
      expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ reply: 'Mock reply to: Give JSON' });
    }
  });

  it('answers structured output (json_schema with a schema) with a value its schema accepts', async () => {
    const schema = {
      type: 'object',
      properties: {
        title: { type: 'string' },
        rating: { type: 'integer', minimum: 3, maximum: 5 },
        mood: { type: 'string', enum: ['calm', 'busy'] },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        kind: { const: 'review' },
        author: { $ref: '#/$defs/person' },
      },
      required: ['title', 'rating', 'mood', 'tags', 'note', 'kind', 'author'],
      additionalProperties: false,
      $defs: {
        person: {
          type: 'object',
          properties: { name: { type: 'string' }, friends: { type: 'array', items: { $ref: '#/$defs/person' } } },
          required: ['name', 'friends'],
          additionalProperties: false,
        },
      },
    };
    const response_format = { type: 'json_schema' as const, json_schema: { name: 'review', strict: true, schema } };
    const { completion } = await provider().chat(ask('Review it', { response_format }), target, call());
    const value: unknown = JSON.parse(completion.choices[0]?.message.content ?? '');
    const validate = new Ajv({ strict: false }).compile(schema);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    expect(value).toMatchObject({ rating: 3, mood: 'calm', kind: 'review', tags: ['mock', 'mock'] });
  });

  it('fails on demand', async () => {
    await expect(provider().chat(ask('mock:error:500'), target, call())).rejects.toMatchObject({
      kind: 'unavailable',
      retryable: true,
      upstreamStatus: 500,
    });
    await expect(provider().chat(ask('mock:error:timeout'), target, call())).rejects.toMatchObject({
      kind: 'timeout',
      retryable: true,
      status: 504,
    });
    await expect(provider().chat(ask('mock:error:400'), target, call())).rejects.toMatchObject({ kind: 'rejected', retryable: false });
    await expect(provider().chatStream(ask('mock:error:500'), target, call())).rejects.toBeInstanceOf(UpstreamError);
  });

  it('waits latency_ms and stops with an AbortError when aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = provider({ latency_ms: 5_000 }).chat(ask('Hi'), target, { signal: controller.signal, requestId: 'r' });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses unknown options at construction', () => {
    expect(() => provider({ latency: 5 })).toThrow(/Invalid options for the mock provider "mock"/);
  });
});

describe('mock provider: streaming', () => {
  it('streams the same reply: role first, finish_reason on the last content chunk, then usage', async () => {
    const adapter = provider();
    const reply = await adapter.chat(ask('one two three'), target, call());
    const chunks = await collectAll((await provider().chatStream(ask('one two three'), target, call())).chunks);
    const content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe(reply.completion.choices[0]?.message.content);
    expect(chunks).toHaveLength(6 + 1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? null)).toEqual([null, null, null, null, null, 'stop', null]);
    expect(chunks.at(-1)).toEqual({
      id: 'chatcmpl-id1',
      object: 'chat.completion.chunk',
      created: Math.floor(NOW / 1000),
      model: 'mock-chat',
      choices: [],
      usage: reply.completion.usage,
    });
  });

  it('uses the configured chunk count and caps the default at 20', async () => {
    const three = await collectAll((await provider({ chunks: 3 }).chatStream(ask('a b c d e f g'), target, call())).chunks);
    expect(three).toHaveLength(3 + 1);
    const many = await collectAll((await provider().chatStream(ask('w '.repeat(100)), target, call())).chunks);
    expect(many).toHaveLength(20 + 1);
    const tiny = await collectAll((await provider({ chunks: 50 }).chatStream(ask('x'), target, call())).chunks);
    expect(tiny.slice(0, -1).map((chunk) => chunk.choices[0]?.delta.content)).toEqual(Array.from('Mock reply to: x'));
  });

  it('streams a tool call as OpenAI does', async () => {
    const tools = [
      { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
    ];
    const chunks = await collectAll((await provider().chatStream(ask('find', { tools }), target, call())).chunks);
    expect(chunks.map((chunk) => chunk.choices[0] ?? null)).toEqual([
      {
        index: 0,
        delta: {
          role: 'assistant',
          tool_calls: [{ index: 0, id: 'call_id1', type: 'function', function: { name: 'lookup', arguments: '' } }],
        },
        finish_reason: null,
      },
      { index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"q":"mock"}' } }] }, finish_reason: 'tool_calls' },
      null,
    ]);
  });

  it('fails mid-stream on demand', async () => {
    const stream = await provider().chatStream(ask('mock:error:midstream'), target, call());
    const seen: ChatCompletionChunk[] = [];
    const failure = (async () => {
      for await (const chunk of stream.chunks) seen.push(chunk);
    })();
    await expect(failure).rejects.toMatchObject({ kind: 'unavailable' });
    expect(seen).toHaveLength(2);
  });

  it('stops with an AbortError when aborted between chunks', async () => {
    const controller = new AbortController();
    const stream = await provider({ chunk_delay_ms: 5_000 }).chatStream(ask('a b c'), target, {
      signal: controller.signal,
      requestId: 'r',
    });
    const iterator = stream.chunks[Symbol.asyncIterator]();
    await iterator.next();
    setTimeout(() => controller.abort(), 20);
    await expect(iterator.next()).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('mock provider: embeddings', () => {
  const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));

  it('returns deterministic unit vectors of the asked size, in input order', async () => {
    const result = await provider().embeddings({ model: 'e', input: ['alpha', 'beta', 'alpha'], dimensions: 64 }, target, call());
    const [first, second, third] = result.response.data;
    expect(result.response.data.map((item) => [item.index, item.embedding.length])).toEqual([
      [0, 64],
      [1, 64],
      [2, 64],
    ]);
    // The mock answers floats whatever was asked (the route encodes base64).
    expect(norm((first?.embedding ?? []) as number[])).toBeCloseTo(1, 10);
    expect(third?.embedding).toEqual(first?.embedding);
    expect(second?.embedding).not.toEqual(first?.embedding);
    expect(result.response.model).toBe('mock-chat');
    expect(result.usage).toEqual({ promptTokens: encode('alpha').length * 2 + encode('beta').length, completionTokens: 0 });
  });

  it('defaults to the largest allowed dimension, else 1536', async () => {
    const allowed = await provider().embeddings({ model: 'e', input: 'x' }, { ...target, dimensions: [256, 1024] }, call());
    expect(allowed.response.data[0]?.embedding).toHaveLength(1024);
    const plain = await provider().embeddings({ model: 'e', input: 'x' }, target, call());
    expect(plain.response.data[0]?.embedding).toHaveLength(1536);
  });

  it('fails on demand', async () => {
    await expect(provider().embeddings({ model: 'e', input: ['ok', 'mock:error:500'] }, target, call())).rejects.toMatchObject({
      kind: 'unavailable',
    });
  });
});
