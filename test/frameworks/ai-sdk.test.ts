import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { embedMany, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messageBody, textStream } from '../helpers/mock-anthropic-upstream';
import { chatCompletionReply, chatStreamReply, embeddingsReply } from '../helpers/mock-openai-upstream';
import { useFrameworkGateway } from './framework-gateway';

/**
 * The Vercel AI SDK (pinned in test/frameworks/package.json) pointed at the gateway as its
 * users do: `createOpenAI({ baseURL })` (whose default model speaks the Responses API, `.chat()`
 * chat completions, `.embedding()` embeddings) and `createAnthropic({ baseURL })` (Messages).
 * What the SDK hands the application (text, usage, finish reason, tool results) is what the
 * upstream sent; what reached the upstream is the SDK's request with the catalogue's model.
 */
const fw = useFrameworkGateway();

let openai: ReturnType<typeof createOpenAI>;
let anthropic: ReturnType<typeof createAnthropic>;
beforeAll(() => {
  openai = createOpenAI({ apiKey: fw.apiKey(), baseURL: `${fw.baseUrl()}/v1` });
  anthropic = createAnthropic({ apiKey: fw.apiKey(), baseURL: `${fw.baseUrl()}/v1` });
});

const USAGE = { prompt: 11, completion: 7 };
const SDK_USAGE = { inputTokens: 11, outputTokens: 7, totalTokens: 18 };

describe('the Vercel AI SDK through the gateway', () => {
  let requestsBefore: number;
  beforeEach(async () => {
    requestsBefore = await fw.reportedRequests();
  });

  it('openai.chat(): generateText gets the text, usage and finish reason; the upstream gets the catalogue model', async () => {
    fw.openai().reply(chatCompletionReply('Hello from upstream.', USAGE));
    const result = await generateText({ model: openai.chat('fw-chat'), prompt: 'Say hello' });
    expect(result.text).toBe('Hello from upstream.');
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject(SDK_USAGE);
    expect(fw.openai().requests.at(-1)?.body).toMatchObject({
      model: fw.upstreamModel,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    await fw.expectReported(requestsBefore + 1);
  });

  it('openai.chat(): streamText gets every piece in order and the usage of the last chunk', async () => {
    fw.openai().reply(chatStreamReply(['One, ', 'two, ', 'three.'], USAGE));
    const result = streamText({ model: openai.chat('fw-chat'), prompt: 'Count' });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    expect(pieces.join('')).toBe('One, two, three.');
    expect(await result.usage).toMatchObject(SDK_USAGE);
    expect(await result.finishReason).toBe('stop');
    expect(fw.openai().requests.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    await fw.expectReported(requestsBefore + 1);
  });

  it('openai.chat(): a tool call runs in the application and its result goes back upstream in the next step', async () => {
    fw.openai().reply(
      chatCompletionReply([{ id: 'call_weather_1', name: 'weather', arguments: '{"city":"Paris"}' }], USAGE),
      chatCompletionReply('It is 21 degrees in Paris.', USAGE),
    );
    const calls: unknown[] = [];
    const result = await generateText({
      model: openai.chat('fw-chat'),
      prompt: 'Weather in Paris?',
      tools: {
        weather: tool({
          description: 'The weather in a city',
          inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
          execute: async (input) => {
            calls.push(input);
            return { city: input.city, celsius: 21 };
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(calls).toEqual([{ city: 'Paris' }]);
    expect(result.text).toBe('It is 21 degrees in Paris.');
    expect(result.steps).toHaveLength(2);
    const [first, second] = fw
      .openai()
      .requests.slice(-2)
      .map((request) => request.body as { tools?: unknown[]; messages: unknown[] });
    expect(first?.tools).toEqual([expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'weather' }) })]);
    expect(second?.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      expect.objectContaining({
        role: 'assistant',
        tool_calls: [{ id: 'call_weather_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
      }),
      { role: 'tool', tool_call_id: 'call_weather_1', content: JSON.stringify({ city: 'Paris', celsius: 21 }) },
    ]);
    await fw.expectReported(requestsBefore + 2);
  });

  it("openai(): the SDK's default Responses API, translated to the chat upstream, non-streamed and streamed", async () => {
    fw.openai().reply(chatCompletionReply('A Responses reply.', USAGE), chatStreamReply(['A streamed ', 'Responses reply.'], USAGE));
    const generated = await generateText({ model: openai('fw-chat'), prompt: 'Hi' });
    expect(generated.text).toBe('A Responses reply.');
    expect(generated.usage).toMatchObject(SDK_USAGE);
    const streamed = streamText({ model: openai('fw-chat'), prompt: 'Hi' });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    expect(text).toBe('A streamed Responses reply.');
    expect(await streamed.usage).toMatchObject(SDK_USAGE);
    expect(
      fw
        .openai()
        .requests.slice(-2)
        .map((request) => request.path),
    ).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    await fw.expectReported(requestsBefore + 2);
  });

  it('openai.embedding(): embedMany gets each vector in order and the token count', async () => {
    fw.openai().reply(
      embeddingsReply(
        [
          [0.25, -0.5],
          [0.125, 0.75],
        ],
        6,
      ),
    );
    const result = await embedMany({ model: openai.embedding('fw-embed'), values: ['first', 'second'] });
    expect(result.embeddings).toEqual([
      [0.25, -0.5],
      [0.125, 0.75],
    ]);
    expect(result.usage).toEqual({ tokens: 6 });
    expect(fw.openai().requests.at(-1)?.body).toMatchObject({ model: fw.upstreamModel, input: ['first', 'second'] });
    await fw.expectReported(requestsBefore + 1);
  });

  it('createAnthropic(): Messages passed through to an Anthropic upstream, non-streamed and streamed', async () => {
    fw.anthropic().reply(
      {
        type: 'json',
        body: messageBody([{ type: 'text', text: 'Hello from Claude.' }], 'end_turn', { input_tokens: 11, output_tokens: 7 }),
      },
      { type: 'sse', events: textStream(['Streamed ', 'from Claude.'], 'end_turn', { input_tokens: 11, output_tokens: 7 }) },
    );
    const generated = await generateText({ model: anthropic('fw-claude'), prompt: 'Hi', maxOutputTokens: 64 });
    expect(generated.text).toBe('Hello from Claude.');
    expect(generated.usage).toMatchObject(SDK_USAGE);
    const streamed = streamText({ model: anthropic('fw-claude'), prompt: 'Hi', maxOutputTokens: 64 });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    expect(text).toBe('Streamed from Claude.');
    expect(await streamed.finishReason).toBe('stop');
    expect(
      fw
        .anthropic()
        .requests.slice(-2)
        .map((request) => (request.body as { model: string }).model),
    ).toEqual([fw.upstreamModel, fw.upstreamModel]);
    await fw.expectReported(requestsBefore + 2);
  });
});
