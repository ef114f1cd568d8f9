import { ChatAnthropic } from '@langchain/anthropic';
import type { AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { messageBody, textStream } from '../helpers/mock-anthropic-upstream';
import { chatCompletionReply, chatStreamReply, embeddingsReply } from '../helpers/mock-openai-upstream';
import { useFrameworkGateway } from './framework-gateway';

/**
 * LangChain's OpenAI and Anthropic integrations (pinned in test/frameworks/package.json)
 * pointed at the gateway as their users do (`configuration.baseURL`, `anthropicApiUrl`): chat
 * models (chat completions, the Responses API with `useResponsesApi`, the Messages API), tool
 * binding, streaming with usage, embeddings.
 */
const fw = useFrameworkGateway();

const USAGE = { prompt: 13, completion: 5 };
const LANGCHAIN_USAGE = { input_tokens: 13, output_tokens: 5, total_tokens: 18 };

function chatModel(options: { streamUsage?: boolean; useResponsesApi?: boolean } = {}): ChatOpenAI {
  return new ChatOpenAI({
    model: 'fw-chat',
    apiKey: fw.apiKey(),
    configuration: { baseURL: `${fw.baseUrl()}/v1` },
    maxRetries: 0,
    ...options,
  });
}

describe('LangChain through the gateway', () => {
  let requestsBefore: number;
  beforeEach(async () => {
    requestsBefore = await fw.reportedRequests();
  });

  it('invoke: the message content and usage_metadata are the upstream reply', async () => {
    fw.openai().reply(chatCompletionReply('Bonjour.', USAGE));
    const message = await chatModel().invoke([
      ['system', 'Answer in French.'],
      ['human', 'Hello'],
    ]);
    expect(message.content).toBe('Bonjour.');
    expect(message.usage_metadata).toMatchObject(LANGCHAIN_USAGE);
    expect(fw.openai().requests.at(-1)?.body).toMatchObject({
      model: fw.upstreamModel,
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Hello' },
      ],
    });
    await fw.expectReported(requestsBefore + 1);
  });

  it('stream: the chunks concatenate to the reply; the last carries the usage', async () => {
    fw.openai().reply(chatStreamReply(['Un, ', 'deux, ', 'trois.'], USAGE));
    let text = '';
    let usage: unknown;
    for await (const chunk of await chatModel({ streamUsage: true }).stream('Count')) {
      text += String(chunk.content);
      if (chunk.usage_metadata) usage = chunk.usage_metadata;
    }
    expect(text).toBe('Un, deux, trois.');
    expect(usage).toMatchObject(LANGCHAIN_USAGE);
    expect(fw.openai().requests.at(-1)?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    await fw.expectReported(requestsBefore + 1);
  });

  it('bindTools: the tool definition reaches the upstream; the tool call comes back parsed', async () => {
    fw.openai().reply(chatCompletionReply([{ id: 'call_lookup_1', name: 'lookup', arguments: '{"term":"gateway"}' }], USAGE));
    const withTools = chatModel().bindTools([
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'Look a term up',
          parameters: { type: 'object', properties: { term: { type: 'string' } }, required: ['term'] },
        },
      },
    ]);
    const message = await withTools.invoke('What is a gateway?');
    expect(message.tool_calls).toEqual([{ id: 'call_lookup_1', name: 'lookup', args: { term: 'gateway' }, type: 'tool_call' }]);
    expect((fw.openai().requests.at(-1)?.body as { tools?: unknown[] }).tools).toEqual([
      expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'lookup' }) }),
    ]);
    await fw.expectReported(requestsBefore + 1);
  });

  it('useResponsesApi: the Responses API, translated to the chat upstream', async () => {
    fw.openai().reply(chatCompletionReply('Through Responses.', USAGE));
    const message = await chatModel({ useResponsesApi: true }).invoke('Hi');
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Through Responses.' })]);
    expect(message.usage_metadata).toMatchObject(LANGCHAIN_USAGE);
    expect(fw.openai().requests.at(-1)?.path).toBe('/v1/chat/completions');
    await fw.expectReported(requestsBefore + 1);
  });

  it('OpenAIEmbeddings: embedDocuments gets each vector in order', async () => {
    fw.openai().reply(embeddingsReply([[0.5, 0.25, -1]], 2), embeddingsReply([[-0.5, 0, 1]], 2));
    const embeddings = new OpenAIEmbeddings({ model: 'fw-embed', apiKey: fw.apiKey(), configuration: { baseURL: `${fw.baseUrl()}/v1` } });
    expect(await embeddings.embedQuery('first')).toEqual([0.5, 0.25, -1]);
    expect(await embeddings.embedDocuments(['second'])).toEqual([[-0.5, 0, 1]]);
    expect(fw.openai().requests.at(-1)?.body).toMatchObject({ model: fw.upstreamModel, input: ['second'] });
    await fw.expectReported(requestsBefore + 2);
  });

  const claude = (model: string) =>
    new ChatAnthropic({ model, apiKey: fw.apiKey(), anthropicApiUrl: fw.baseUrl(), maxRetries: 0, maxTokens: 64 });

  it('ChatAnthropic: Messages passed through to an Anthropic upstream, invoked and streamed, with usage', async () => {
    const usage = { input_tokens: 13, output_tokens: 5 };
    fw.anthropic().reply(
      { type: 'json', body: messageBody([{ type: 'text', text: 'Hello from Claude.' }], 'end_turn', usage) },
      { type: 'sse', events: textStream(['Streamed ', 'from Claude.'], 'end_turn', usage) },
    );
    const message = await claude('fw-claude').invoke('Hi');
    expect(message.content).toBe('Hello from Claude.');
    expect(message.usage_metadata).toMatchObject(LANGCHAIN_USAGE);
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await claude('fw-claude').stream('Hi')) whole = whole ? whole.concat(chunk) : chunk;
    expect(whole?.content).toBe('Streamed from Claude.');
    // Output tokens are not compared: LangChain adds message_start's to message_delta's running total.
    expect(whole?.usage_metadata?.input_tokens).toBe(13);
    expect(
      fw
        .anthropic()
        .requests.slice(-2)
        .map((request) => request.body),
    ).toEqual([
      expect.objectContaining({ model: fw.upstreamModel, max_tokens: 64 }),
      expect.objectContaining({ model: fw.upstreamModel, max_tokens: 64, stream: true }),
    ]);
    await fw.expectReported(requestsBefore + 2);
  });

  it('ChatAnthropic on a model of an OpenAI-type provider: translated both ways, the tool call parsed', async () => {
    fw.openai().reply(chatCompletionReply([{ id: 'call_lookup_2', name: 'lookup', arguments: '{"term":"proxy"}' }], USAGE));
    const withTools = claude('fw-chat').bindTools([
      {
        name: 'lookup',
        description: 'Look a term up',
        input_schema: { type: 'object', properties: { term: { type: 'string' } }, required: ['term'] },
      },
    ]);
    const message = await withTools.invoke('What is a proxy?');
    expect(message.tool_calls).toEqual([{ id: 'call_lookup_2', name: 'lookup', args: { term: 'proxy' }, type: 'tool_call' }]);
    expect(message.usage_metadata).toMatchObject(LANGCHAIN_USAGE);
    expect(fw.openai().requests.at(-1)?.body).toMatchObject({
      model: fw.upstreamModel,
      messages: [{ role: 'user', content: 'What is a proxy?' }],
      tools: [{ type: 'function', function: expect.objectContaining({ name: 'lookup' }) }],
    });
    await fw.expectReported(requestsBefore + 1);
  });
});
