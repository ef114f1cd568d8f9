import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import {
  azureCompletionReply,
  azureStreamReply,
  contentFilterErrorReply,
  startMockAzureUpstream,
  type MockAzureUpstream,
} from '../helpers/mock-azure-upstream';
import { modelEntry, streamedMessage, upstreamSection, usageFor, useUpstreamE2e } from './helpers';

/**
 * The routes an Azure deployment serves by translation (docs/azure.md): /v1/messages with the
 * official @anthropic-ai/sdk (usage with cached tokens, Azure's filter chunks in the stream,
 * the content filter's refusal and stop in Anthropic's terms), and /v1/responses translated to
 * chat on the deployment-path API, which has no Responses API of its own here.
 */
const AZURE_KEY = '3f405162738495a6b7c8d9e0f10c1d2e';

const CONFIG = (azure: MockAzureUpstream) => `${upstreamSection()}
providers:
  azure: { type: azure, base_url: ${azure.endpoint}, api_key_env: E2E_AZURE_KEY, options: { api_version: 2024-10-21 } }
models:
${modelEntry('gpt-4o', 'azure', 'gpt-4o-prod', 'chat, vision, function_calling', 128_000, 'input_per_million: 2.5, output_per_million: 10, cache_read_per_million: 1.25')}
`;

const CHAT_PATH = '/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21';

describe('e2e: /v1/messages and /v1/responses onto an azure deployment', () => {
  const fixture = useUpstreamE2e(startMockAzureUpstream.bind(null, { apiKey: AZURE_KEY }), CONFIG, { env: { E2E_AZURE_KEY: AZURE_KEY } });

  it('answers a message with Anthropic usage from Azure cached tokens', async () => {
    fixture.upstream.reply(azureCompletionReply({ content: 'Hello.' }, { prompt: 1500, completion: 20, cached: 1280 }));
    const { data, response } = await fixture.e2e.anthropic.messages
      .create({ model: 'gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'Hello.' }]);
    expect(data.stop_reason).toBe('end_turn');
    expect(data.usage).toMatchObject({ input_tokens: 220, cache_read_input_tokens: 1280, output_tokens: 20 });
    expect(fixture.upstream.requests[0]?.path).toBe(CHAT_PATH);
    const event = await usageFor(fixture.e2e, response.headers.get('x-request-id'));
    expect(event).toMatchObject({ provider: 'azure', promptTokens: 1500, cachedTokens: 1280, completionTokens: 20 });
  });

  it('streams a message from Azure chunks (prompt filter chunk first); a filtered stop is a refusal', async () => {
    fixture.upstream.reply(azureStreamReply(['Once ', 'upon'], { prompt: 12, completion: 2 }, { filtered: ['violence'] }));
    const { message } = await streamedMessage(fixture.e2e, {
      model: 'gpt-4o',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'A story' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Once upon' }]);
    expect(message.stop_reason).toBe('refusal');
  });

  it('a prompt the filter refused: a 400 invalid_request_error naming the categories', async () => {
    fixture.upstream.reply(contentFilterErrorReply(['self_harm']));
    const error = await fixture.e2e.anthropic.messages
      .create({ model: 'gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] })
      .then(() => null)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'The provider "azure" refused the prompt under its content filter: self_harm (medium).',
      },
    });
  });

  it('translates /v1/responses to chat on the deployment', async () => {
    fixture.upstream.reply(azureCompletionReply({ content: 'Translated.' }, { prompt: 30, completion: 3, cached: 0 }));
    const response = await fetch(`${fixture.e2e.gateway.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fixture.e2e.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', input: 'Hello' }),
    });
    const body = (await response.json()) as { status: string; output: { content?: { text: string }[] }[] };
    expect(response.status).toBe(200);
    expect(body.status).toBe('completed');
    expect(body.output.flatMap((item) => item.content ?? []).map((part) => part.text)).toEqual(['Translated.']);
    expect(fixture.upstream.requests[0]?.path).toBe(CHAT_PATH);
    expect(fixture.upstream.requests[0]?.body).toMatchObject({ model: 'gpt-4o-prod', messages: [{ role: 'user', content: 'Hello' }] });
  });
});
