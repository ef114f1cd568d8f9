import { BadRequestError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockOpenAiUpstream, chatCompletionReply, embeddingsReply, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { textResponse, textResponseStream } from '../helpers/mock-openai-responses';
import {
  azureCompletionReply,
  azureError,
  azureStreamReply,
  contentFilterErrorReply,
  startMockAzureUpstream,
  type MockAzureUpstream,
} from '../helpers/mock-azure-upstream';
import { usdText } from './exact-cost-setup';
import { apiErrorOf, collect, type E2e, imageQuestion, modelEntry, startE2e, upstreamSection, usageFor, WEATHER_TOOL } from './helpers';

/**
 * The `azure` provider type end to end (docs/azure.md): the official OpenAI client -> the
 * gateway -> a local Azure OpenAI resource on the v1 API and on the deployment-path API, and an
 * Azure model falling back to the same model on OpenAI directly.
 */
const AZURE_KEY = '0c1d2e3f405162738495a6b7c8d9e0f1';
const OPENAI_KEY = 'sk-proj-direct-0123456789';

const CONFIG = (azure: MockAzureUpstream, openai: MockOpenAiUpstream) => `${upstreamSection()}
providers:
  azure: { type: azure, base_url: ${azure.endpoint}, api_key_env: E2E_AZURE_KEY, responses_api: true }
  azure-dated: { type: azure, base_url: ${azure.endpoint}, api_key_env: E2E_AZURE_KEY, options: { api_version: 2024-10-21 } }
  openai: { type: openai, base_url: ${openai.baseUrl}, api_key_env: E2E_OPENAI_KEY }
models:
${modelEntry('gpt-4o', 'azure', 'gpt-4o-prod', 'chat, vision, function_calling', 128_000, 'input_per_million: 2.5, output_per_million: 10, cache_read_per_million: 1.25', 'fallbacks: [gpt-4o-openai]')}
${modelEntry('gpt-4o-openai', 'openai', 'gpt-4o-2024-11-20', 'chat, vision, function_calling', 128_000, 'input_per_million: 2.5, output_per_million: 10, cache_read_per_million: 1.25')}
${modelEntry('gpt-4o-dated', 'azure-dated', 'gpt-4o-eu', 'chat', 128_000, 'input_per_million: 2.5, output_per_million: 10')}
  - id: azure-embed
    provider: azure-dated
    upstream_model: embed-3-small
    capabilities: [embeddings]
    dimensions: [256]
    context_window: 8191
    pricing: { input_per_million: 0.02, output_per_million: 0 }
`;

const FEMTO_PER_MILLIONTH = 1_000_000_000n; // a token at 1 USD per million tokens, in femto-dollars

describe('e2e: the azure provider path', () => {
  let azure: MockAzureUpstream;
  let openai: MockOpenAiUpstream;
  let e2e: E2e;
  beforeAll(async () => {
    azure = await startMockAzureUpstream({ apiKey: AZURE_KEY });
    openai = await startMockOpenAiUpstream();
    e2e = await startE2e({ configYaml: CONFIG(azure, openai), env: { E2E_AZURE_KEY: AZURE_KEY, E2E_OPENAI_KEY: OPENAI_KEY } });
  });
  beforeEach(() => {
    azure.requests.length = 0;
    openai.requests.length = 0;
  });
  afterAll(async () => {
    await e2e?.close();
    await azure?.close();
    await openai?.close();
  });

  it('answers a chat completion with the exact cost of its cached tokens', async () => {
    azure.reply(azureCompletionReply({ content: 'Hello there.' }, { prompt: 1200, completion: 40, cached: 1024 }));
    const { data, response } = await e2e.client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }], temperature: 0.2 })
      .withResponse();
    expect(data.model).toBe('gpt-4o');
    expect(data.choices[0]?.message.content).toBe('Hello there.');
    expect(data.usage).toMatchObject({ prompt_tokens: 1200, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 1024 } });

    const [request] = azure.requests;
    expect(request?.path).toBe('/openai/v1/chat/completions');
    expect(request?.headers['api-key']).toBe(AZURE_KEY);
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toEqual({ model: 'gpt-4o-prod', messages: [{ role: 'user', content: 'Hello' }], temperature: 0.2 });

    // 176 uncached at 2.5, 1,024 cached at 1.25, 40 out at 10 USD per million.
    const cost = (176n * 25n * FEMTO_PER_MILLIONTH) / 10n + (1024n * 125n * FEMTO_PER_MILLIONTH) / 100n + 40n * 10n * FEMTO_PER_MILLIONTH;
    expect(response.headers.get('x-gateway-cost-usd')).toBe(usdText(cost));
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({
      model: 'gpt-4o',
      provider: 'azure',
      promptTokens: 1200,
      completionTokens: 40,
      cachedTokens: 1024,
      costFemtoUsd: cost,
      estimated: false,
      status: 200,
    });
  });

  it("streams through the SDK's stream helper: no prompt-filter chunk, one usage chunk", async () => {
    azure.reply(azureStreamReply(['Hel', 'lo', '!'], { prompt: 20, completion: 3, cached: 0 }));
    const runner = e2e.client.chat.completions.stream({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream_options: { include_usage: true },
    });
    const chunks: { choices: number; id: string }[] = [];
    runner.on('chunk', (chunk) => chunks.push({ choices: chunk.choices.length, id: chunk.id }));
    const completion = await runner.finalChatCompletion();
    expect(completion.choices[0]?.message.content).toBe('Hello!');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 3 });
    // Every chunk has a choice but the last (usage), and all carry the reply's id.
    expect(chunks.map((chunk) => chunk.choices)).toEqual([1, 1, 1, 1, 1, 0]);
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-x']));
  });

  it('streams a reply the content filter stopped: finish_reason content_filter', async () => {
    azure.reply(azureStreamReply(['Once upon'], { prompt: 9, completion: 2 }, { filtered: ['violence'] }));
    const stream = await e2e.client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'A story' }],
      stream: true,
    });
    const collected = await collect(stream);
    expect(collected.text).toBe('Once upon');
    expect(collected.chunks.at(-1)?.choices[0]?.finish_reason).toBe('content_filter');
  });

  it('passes a reply the filter cut short with finish_reason content_filter', async () => {
    azure.reply(
      azureCompletionReply({ content: null }, { prompt: 9, completion: 0 }, { finishReason: 'content_filter', filtered: ['sexual'] }),
    );
    const data = await e2e.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    expect(data.choices[0]).toMatchObject({ finish_reason: 'content_filter', message: { content: null } });
  });

  it('a prompt the filter refused: 400 content_filter with the categories, no fallback to OpenAI', async () => {
    azure.reply(contentFilterErrorReply(['violence', 'jailbreak']));
    const error = await apiErrorOf(e2e.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.code).toBe('content_filter');
    expect(error.message).toContain('refused the prompt under its content filter: violence (medium), jailbreak');
    expect(openai.requests).toHaveLength(0);

    azure.reply(contentFilterErrorReply(['hate']));
    const streamed = await apiErrorOf(
      e2e.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: true }),
    );
    expect([streamed.status, streamed.code]).toEqual([400, 'content_filter']);
  });

  it('sends tools and images as they came, and answers tool calls', async () => {
    azure.reply(
      azureCompletionReply(
        {
          content: null,
          tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
        },
        { prompt: 90, completion: 12 },
        { finishReason: 'tool_calls' },
      ),
    );
    const messages = imageQuestion('Weather where this was taken?');
    const data = await e2e.client.chat.completions.create({ model: 'gpt-4o', messages, tools: [WEATHER_TOOL] });
    expect(data.choices[0]?.finish_reason).toBe('tool_calls');
    expect(data.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(azure.requests[0]?.body).toMatchObject({ messages, tools: [WEATHER_TOOL] });
  });

  it('falls back to the same model on OpenAI directly when Azure is unavailable', async () => {
    azure.reply(azureError(503, 'ServiceUnavailable', 'The service is temporarily unable to process your request.'));
    azure.reply(azureError(503, 'ServiceUnavailable', 'The service is temporarily unable to process your request.'));
    openai.reply(chatCompletionReply('From OpenAI.', { prompt: 5, completion: 3 }));
    const { data, response } = await e2e.client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('From OpenAI.');
    expect(azure.requests).toHaveLength(2);
    expect(openai.requests[0]?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(openai.requests[0]?.body).toMatchObject({ model: 'gpt-4o-2024-11-20' });
    const event = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ model: 'gpt-4o-openai', provider: 'openai' });
  });

  it('passes /v1/responses through to the v1 API, streamed and not', async () => {
    azure.reply({ type: 'json', body: textResponse('gpt-4o-prod', 'Hi.', { input: 30, output: 2, cached: 0 }) });
    const response = await e2e.client.responses.create({ model: 'gpt-4o', input: 'Hello' });
    expect(response.output_text).toBe('Hi.');
    expect(azure.requests[0]?.path).toBe('/openai/v1/responses');
    expect(azure.requests[0]?.body).toEqual({ model: 'gpt-4o-prod', input: 'Hello' });

    azure.reply(textResponseStream('gpt-4o-prod', ['He', 'llo'], { input: 30, output: 2 }));
    const stream = await e2e.client.responses.create({ model: 'gpt-4o', input: 'Hello', stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('Hello');
    expect(azure.requests[1]?.body).toMatchObject({ model: 'gpt-4o-prod', stream: true });
  });

  it('serves the deployment-path API: the deployment in the path, the api-version in the query', async () => {
    azure.reply(azureCompletionReply({ content: 'Hej.' }, { prompt: 6, completion: 2 }));
    const data = await e2e.client.chat.completions.create({ model: 'gpt-4o-dated', messages: [{ role: 'user', content: 'Hello' }] });
    expect(data.choices[0]?.message.content).toBe('Hej.');
    expect(azure.requests[0]?.path).toBe('/openai/deployments/gpt-4o-eu/chat/completions?api-version=2024-10-21');
    expect(azure.requests[0]?.headers['api-key']).toBe(AZURE_KEY);
  });

  it('embeds on the deployment, base64 as the SDK asks', async () => {
    azure.reply(embeddingsReply([[0.5, -0.25]], 4, 'text-embedding-3-small'));
    const result = await e2e.client.embeddings.create({ model: 'azure-embed', input: 'hello', dimensions: 256 });
    expect(result.data[0]?.embedding).toEqual([0.5, -0.25]);
    expect(result.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    expect(azure.requests[0]?.path).toBe('/openai/deployments/embed-3-small/embeddings?api-version=2024-10-21');
    expect(azure.requests[0]?.body).toMatchObject({ model: 'embed-3-small', input: 'hello', dimensions: 256 });
  });
});
