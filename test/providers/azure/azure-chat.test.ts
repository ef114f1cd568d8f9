import { describe, expect, it } from 'vitest';
import { chatChunk, embeddingsReply } from '../../helpers/mock-openai-upstream';
import { textResponse } from '../../helpers/mock-openai-responses';
import { azureCompletionReply, azureStreamReply, promptFilterChunk, withFilterResults } from '../../helpers/mock-azure-upstream';
import { API_KEY, API_VERSION, chatRequest, chatTarget, collect, embeddingTarget, useHarness } from './harness';

const USAGE = { prompt: 1200, completion: 40, cached: 1024 };

describe('azure adapter: the v1 API', () => {
  const harness = useHarness();

  it('posts to /openai/v1/chat/completions with the api-key header and the deployment as model', async () => {
    harness.upstream.reply(azureCompletionReply({ content: 'Hello.' }, USAGE));
    const result = await harness.adapter.chat(chatRequest({ temperature: 0.1 }), chatTarget, harness.options());
    const [request] = harness.upstream.requests;
    expect(request?.path).toBe('/openai/v1/chat/completions');
    expect(request?.headers['api-key']).toBe(API_KEY);
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toEqual({ model: 'gpt-4o-prod', messages: [{ role: 'user', content: 'Say hello' }], temperature: 0.1 });
    expect(result.completion.model).toBe('gpt-4o-azure');
    expect(result.completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop', logprobs: null },
    ]);
    expect(result.usage).toEqual({ promptTokens: 1200, completionTokens: 40, cachedTokens: 1024, reasoningTokens: 0 });
  });

  it('passes a reply the content filter cut short with finish_reason content_filter', async () => {
    harness.upstream.reply(
      azureCompletionReply({}, { prompt: 9, completion: 3 }, { finishReason: 'content_filter', filtered: ['violence'] }),
    );
    const result = await harness.adapter.chat(chatRequest(), chatTarget, harness.options());
    expect(result.completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter', logprobs: null },
    ]);
  });

  it("streams: the prompt filter chunk and the finished choice's filter results are not passed on", async () => {
    harness.upstream.reply(azureStreamReply(['Hel', 'lo'], USAGE));
    const stream = await harness.adapter.chatStream(chatRequest(), chatTarget, harness.options());
    const chunks = await collect(stream.chunks);
    expect(harness.upstream.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(chunks.map((chunk) => [chunk.choices.map((choice) => [choice.delta, choice.finish_reason]), chunk.usage ?? null])).toEqual([
      [[[{ role: 'assistant', content: '' }, null]], null],
      [[[{ content: 'Hel' }, null]], null],
      [[[{ content: 'lo' }, null]], null],
      [[[{}, 'stop']], null],
      [[], { prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240, prompt_tokens_details: { cached_tokens: 1024 } }],
    ]);
    // The header is the reply's, not the prompt filter chunk's empty id and zero time.
    expect(new Set(chunks.map((chunk) => `${chunk.id} ${chunk.created} ${chunk.model}`))).toEqual(new Set(['chatcmpl-x 1 gpt-4o-azure']));
  });

  it('streams a reply the filter stopped: finish_reason content_filter', async () => {
    harness.upstream.reply(azureStreamReply(['Once'], { prompt: 5, completion: 1 }, { filtered: ['violence'] }));
    const stream = await harness.adapter.chatStream(chatRequest(), chatTarget, harness.options());
    const chunks = await collect(stream.chunks);
    const finishes = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter((reason) => reason !== null);
    expect(finishes).toEqual(['content_filter']);
  });

  it('streams tool calls', async () => {
    harness.upstream.reply({
      type: 'sse',
      events: [
        { data: promptFilterChunk() },
        {
          data: withFilterResults(
            chatChunk({
              role: 'assistant',
              tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
            }),
          ),
        },
        { data: withFilterResults(chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] })) },
        { data: withFilterResults(chatChunk({}, 'tool_calls')) },
      ],
    });
    const stream = await harness.adapter.chatStream(chatRequest(), chatTarget, harness.options());
    const chunks = await collect(stream.chunks);
    const calls = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(calls).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"city":"Oslo"}' } },
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('posts embeddings to /openai/v1/embeddings', async () => {
    harness.upstream.reply(embeddingsReply([[0.5, -0.25]], 3, 'x'));
    const result = await harness.adapter.embeddings(
      { model: 'embed-azure', input: 'hi', dimensions: 512 },
      embeddingTarget,
      harness.options(),
    );
    expect(harness.upstream.requests[0]?.path).toBe('/openai/v1/embeddings');
    expect(harness.upstream.requests[0]?.body).toEqual({ model: 'embed-3-small', input: 'hi', dimensions: 512, encoding_format: 'float' });
    expect(result.response.data).toEqual([{ object: 'embedding', index: 0, embedding: [0.5, -0.25] }]);
    expect(result.usage).toEqual({ promptTokens: 3, completionTokens: 0 });
  });

  it('passes /responses through to /openai/v1/responses', async () => {
    harness.upstream.reply({ type: 'json', body: textResponse('gpt-4o-prod', 'Hi.', { input: 5, output: 2 }) });
    const response = await harness.adapter.responses?.({ model: 'gpt-4o-azure', input: 'Hello' }, chatTarget, {
      ...harness.options(),
      stream: false,
    });
    expect(response?.status).toBe(200);
    expect(JSON.parse((await response?.text()) ?? '')).toMatchObject({ object: 'response', model: 'gpt-4o-prod' });
    expect(harness.upstream.requests[0]?.path).toBe('/openai/v1/responses');
    expect(harness.upstream.requests[0]?.body).toEqual({ model: 'gpt-4o-prod', input: 'Hello' });
  });
});

describe('azure adapter: the deployment-path API', () => {
  const harness = useHarness({ providerOptions: { api_version: API_VERSION } });

  it('posts to the deployment named by the upstream model, with the api-version', async () => {
    harness.upstream.reply(azureCompletionReply({ content: 'Hi.' }, { prompt: 4, completion: 2 }));
    const result = await harness.adapter.chat(chatRequest(), chatTarget, harness.options());
    const [request] = harness.upstream.requests;
    expect(request?.path).toBe(`/openai/deployments/gpt-4o-prod/chat/completions?api-version=${API_VERSION}`);
    expect(request?.headers['api-key']).toBe(API_KEY);
    expect(result.completion.choices[0]?.message.content).toBe('Hi.');
  });

  it("streams and embeds on each model's own deployment", async () => {
    harness.upstream.reply(azureStreamReply(['Hi'], { prompt: 4, completion: 1 }), {
      type: 'json',
      body: {
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: [1] }],
        model: 'x',
        usage: { prompt_tokens: 1, total_tokens: 1 },
      },
    });
    const stream = await harness.adapter.chatStream(chatRequest(), chatTarget, harness.options());
    await collect(stream.chunks);
    await harness.adapter.embeddings({ model: 'embed-azure', input: 'x' }, embeddingTarget, harness.options());
    expect(harness.upstream.requests.map((request) => request.path)).toEqual([
      `/openai/deployments/gpt-4o-prod/chat/completions?api-version=${API_VERSION}`,
      `/openai/deployments/embed-3-small/embeddings?api-version=${API_VERSION}`,
    ]);
  });

  it('has no Responses pass-through (the v1 API serves it)', () => {
    expect(harness.adapter.responses).toBeUndefined();
  });
});
