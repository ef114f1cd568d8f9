import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGatewayClient, GatewayStreamError, type ChatCompletionChunk } from '../../contract/client';
import { readEvents } from '../../contract/event-stream';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

let gw: TestGateway;
let apiKey: string;
beforeAll(async () => {
  gw = await startTestGateway();
  apiKey = (await gw.createKey(await gw.createAccount())).key;
});
afterAll(() => gw.close());

const bytes = (text: string) => new TextEncoder().encode(text);

function streamOf(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

it('typed calls reach every kind of route: the catalogue, chat, embeddings', async () => {
  const client = createGatewayClient({ baseUrl: `${gw.baseUrl}/`, apiKey });
  const models = await client.models.list();
  expect(models.status).toBe(200);
  if (models.status !== 200) return;
  expect(models.body.data.map((model) => model.id)).toContain('mock-chat');

  const chat = await client.chat.create({ body: { model: 'mock-chat', messages: [{ role: 'user', content: 'Hello' }] } });
  expect(chat.status).toBe(200);
  if (chat.status === 200) expect(chat.body.object).toBe('chat.completion');

  const embeddings = await client.embeddings.create({ body: { model: 'mock-embed', input: ['a', 'b'] } });
  expect(embeddings.status).toBe(200);
  if (embeddings.status === 200) expect(embeddings.body.data).toHaveLength(2);
});

it('streamChatCompletion yields the chunks of a streamed reply, checked by the contract, and ends at [DONE]', async () => {
  const client = createGatewayClient({ baseUrl: gw.baseUrl, apiKey });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of client.streamChatCompletion({
    model: 'mock-chat',
    messages: [{ role: 'user', content: 'Say something' }],
    stream_options: { include_usage: true },
  })) {
    chunks.push(chunk);
  }
  expect(chunks.length).toBeGreaterThan(1);
  expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
  const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
  expect(text.length).toBeGreaterThan(0);
  expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'stop')).toBe(true);
  expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);
});

it('an error status before the stream throws GatewayStreamError with the envelope', async () => {
  const client = createGatewayClient({ baseUrl: gw.baseUrl, apiKey: 'sk-not-a-key' });
  const iterate = async () => {
    for await (const chunk of client.streamChatCompletion({ model: 'mock-chat', messages: [{ role: 'user', content: 'Hi' }] })) void chunk;
  };
  const error = await iterate().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(GatewayStreamError);
  expect(error).toMatchObject({ status: 401, error: { type: 'authentication_error' } });
});

it('an error event inside the stream throws after the chunks before it', async () => {
  const client = createGatewayClient({ baseUrl: gw.baseUrl, apiKey });
  const seen: string[] = [];
  const iterate = async () => {
    for await (const chunk of client.streamChatCompletion({
      model: 'mock-chat',
      messages: [{ role: 'user', content: 'mock:error:midstream' }],
    })) {
      seen.push(chunk.object);
    }
  };
  const error = await iterate().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(GatewayStreamError);
  expect(error).toMatchObject({ status: 200 });
  expect(seen.length).toBeGreaterThan(0);
});

it('the event reader joins data lines, skips comments, and survives bytes split anywhere (CRLF, multi-byte characters)', async () => {
  const text = ': keep-alive\r\nevent: message\r\ndata: {"a":\r\ndata: "é"}\r\n\r\ndata: [DONE]\n\n';
  const encoded = bytes(text);
  for (let split = 0; split <= encoded.length; split++) {
    const events = [];
    for await (const event of readEvents(streamOf([encoded.slice(0, split), encoded.slice(split)]))) events.push(event);
    expect(events, `split at ${split}`).toEqual([
      { event: 'message', data: '{"a":\n"é"}' },
      { event: null, data: '[DONE]' },
    ]);
  }
});
