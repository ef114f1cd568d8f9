import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorOf, collect, decodeFloat32Base64, imageQuestion, rawPost, startE2e, usageFor, WEATHER_TOOL, type E2e } from './helpers';

/** The bundled `mock` provider (BASE_TEST_CONFIG: mock-chat, mock-text, mock-embed) through the official client. */
describe('e2e: the mock provider through the openai client', () => {
  let e2e: E2e;
  beforeAll(async () => {
    e2e = await startE2e();
  });
  afterAll(async () => {
    await e2e.close();
  });

  it('answers a chat completion, with usage and the catalogue id', async () => {
    const { data: completion, response } = await e2e.client.chat.completions
      .create({ model: 'mock-chat', messages: [{ role: 'user', content: 'Hello there' }] })
      .withResponse();
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('mock-chat');
    expect(completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'Mock reply to: Hello there' }, finish_reason: 'stop' },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: completion.usage!.prompt_tokens + completion.usage!.completion_tokens,
    });
    expect(response.headers.get('x-ratelimit-limit-requests')).toBeTruthy();
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({
      keyId: e2e.keyId,
      model: 'mock-chat',
      provider: 'mock',
      status: 200,
      stream: false,
      estimated: false,
      promptTokens: completion.usage!.prompt_tokens,
      completionTokens: completion.usage!.completion_tokens,
    });
  });

  it('streams: role first, finish_reason on the last content chunk, then the usage chunk', async () => {
    const { data: stream, response } = await e2e.client.chat.completions
      .create({
        model: 'mock-chat',
        messages: [{ role: 'user', content: 'one two three' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const collected = await collect(stream);
    expect(collected.text).toBe('Mock reply to: one two three');
    expect(collected.roles).toEqual(['assistant']);
    expect(collected.chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(collected.finishReasons).toEqual(['stop']);
    expect([...collected.models]).toEqual(['mock-chat']);
    expect(collected.usageChunks).toHaveLength(1);
    expect(collected.chunks.at(-1)).toBe(collected.usageChunks[0]);
    const usage = collected.usageChunks[0]!.usage!;
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({
      status: 200,
      stream: true,
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
    });
  });

  it('streams without a usage chunk when include_usage is not set, and still records usage', async () => {
    const { data: stream, response } = await e2e.client.chat.completions
      .create({ model: 'mock-chat', messages: [{ role: 'user', content: 'quiet please' }], stream: true })
      .withResponse();
    const collected = await collect(stream);
    expect(collected.usageChunks).toEqual([]);
    expect(collected.chunks.every((chunk) => chunk.usage == null)).toBe(true);
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ status: 200, stream: true, estimated: false });
    expect(event.completionTokens).toBeGreaterThan(0);
  });

  it('calls a tool, then answers the tool result', async () => {
    const first = await e2e.client.chat.completions.create({
      model: 'mock-chat',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
    });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"mock"}' } });
    if (call?.type !== 'function') throw new Error('expected a function call');

    const second = await e2e.client.chat.completions.create({
      model: 'mock-chat',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '{"temp_c":21}' },
      ],
      tools: [WEATHER_TOOL],
    });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message.content).toBe('Mock reply to: Weather in Paris?');
  });

  it('streams a tool call as delta.tool_calls with an index', async () => {
    const stream = await e2e.client.chat.completions.create({
      model: 'mock-chat',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [WEATHER_TOOL],
      stream: true,
    });
    const collected = await collect(stream);
    expect(collected.toolCalls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: '{"city":"mock"}' }]);
    expect(collected.finishReasons).toEqual(['tool_calls']);
  });

  it('answers JSON in JSON mode', async () => {
    const completion = await e2e.client.chat.completions.create({
      model: 'mock-chat',
      messages: [{ role: 'user', content: 'Give me JSON' }],
      response_format: { type: 'json_object' },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual({ reply: 'Mock reply to: Give me JSON' });
  });

  it('stops at a stop sequence and accepts image parts on a vision model', async () => {
    const stopped = await e2e.client.chat.completions.create({
      model: 'mock-chat',
      messages: [{ role: 'user', content: 'alpha beta' }],
      stop: [' beta'],
    });
    expect(stopped.choices[0]?.message.content).toBe('Mock reply to: alpha');
    const image = await e2e.client.chat.completions.create({
      model: 'mock-chat',
      messages: imageQuestion(),
    });
    expect(image.choices[0]?.message.content).toBe('Mock reply to: What is this?');
  });

  it('embeds as floats, as base64 (decoded by the client), and as raw little-endian base64', async () => {
    const floats = await e2e.client.embeddings.create({ model: 'mock-embed', input: ['a', 'b'], encoding_format: 'float' });
    expect(floats.model).toBe('mock-embed');
    expect(floats.data.map((item) => [item.index, item.embedding.length])).toEqual([
      [0, 1536],
      [1, 1536],
    ]);
    expect(floats.usage.prompt_tokens).toBeGreaterThan(0);
    const vector = floats.data[0]!.embedding;

    const decoded = await e2e.client.embeddings.create({ model: 'mock-embed', input: ['a', 'b'] });
    expect(Array.from(decoded.data[0]!.embedding)).toEqual(vector.map(Math.fround));

    const raw = await rawPost(e2e, '/v1/embeddings', { model: 'mock-embed', input: 'a', encoding_format: 'base64', dimensions: 256 });
    expect(raw.status).toBe(200);
    const body = (await raw.json()) as { data: { embedding: string }[] };
    const values = decodeFloat32Base64(body.data[0]!.embedding);
    expect(values).toHaveLength(256);
    const reference = await e2e.client.embeddings.create({ model: 'mock-embed', input: 'a', dimensions: 256, encoding_format: 'float' });
    expect(values).toEqual(reference.data[0]!.embedding.map(Math.fround));
  });

  it('refuses a dimensions value the model does not list', async () => {
    const error = await apiErrorOf(e2e.client.embeddings.create({ model: 'mock-embed', input: 'a', dimensions: 512 }));
    expect(error.status).toBe(400);
    expect(error.param).toBe('dimensions');
    expect(error.type).toBe('invalid_request_error');
  });

  describe('capability checks on mock-text (chat only)', () => {
    it.each([
      ['tools', { tools: [WEATHER_TOOL] }, 'tools'],
      ['JSON mode', { response_format: { type: 'json_object' as const } }, 'response_format'],
      ['an image part', { messages: imageQuestion('see') }, 'messages[0].content[1]'],
    ])('refuses %s with 400 unsupported_capability', async (_name, extra, param) => {
      const error = await apiErrorOf(
        e2e.client.chat.completions.create({ model: 'mock-text', messages: [{ role: 'user', content: 'hi' }], ...extra }),
      );
      expect(error.status).toBe(400);
      expect(error.error).toEqual({ message: expect.any(String), type: 'invalid_request_error', param, code: 'unsupported_capability' });
    });
  });

  it('answers 404 model_not_found with param model', async () => {
    const error = await apiErrorOf(
      e2e.client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(error.status).toBe(404);
    expect(error.error).toEqual({ message: expect.any(String), type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
  });

  it('refuses an embeddings model on the chat route and a chat model on the embeddings route', async () => {
    const chat = await apiErrorOf(e2e.client.chat.completions.create({ model: 'mock-embed', messages: [{ role: 'user', content: 'hi' }] }));
    expect(chat.status).toBe(400);
    expect(chat.error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
    const embeddings = await apiErrorOf(e2e.client.embeddings.create({ model: 'mock-chat', input: 'hi' }));
    expect(embeddings.status).toBe(400);
    expect(embeddings.error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
  });

  it('turns a mid-stream failure into an error event the client throws, and records usage', async () => {
    const { data: stream, response } = await e2e.client.chat.completions
      .create({ model: 'mock-chat', messages: [{ role: 'user', content: 'mock:error:midstream' }], stream: true })
      .withResponse();
    const seen: string[] = [];
    const error = await apiErrorOf(
      (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    );
    expect(seen.length).toBe(2);
    expect(error.error).toMatchObject({ type: 'upstream_error', code: 'upstream_unavailable' });
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ status: 502, errorCode: 'upstream_unavailable', stream: true });
  });

  it('sends the mid-stream error as the last data event, without [DONE]', async () => {
    const response = await rawPost(e2e, '/v1/chat/completions', {
      model: 'mock-chat',
      messages: [{ role: 'user', content: 'mock:error:midstream' }],
      stream: true,
    });
    expect(response.status).toBe(200);
    const data = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length));
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data.at(-1) ?? '')).toEqual({
      error: { message: expect.any(String), type: 'upstream_error', param: null, code: 'upstream_unavailable' },
    });
    expect(data.slice(0, -1).map((line) => (JSON.parse(line) as { object: string }).object)).toEqual([
      'chat.completion.chunk',
      'chat.completion.chunk',
    ]);
  });
});
