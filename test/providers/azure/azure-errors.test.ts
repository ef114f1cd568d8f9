import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../server/errors/gateway-error';
import { azureError, contentFilterErrorReply } from '../../helpers/mock-azure-upstream';
import { API_KEY, chatRequest, chatTarget, rejection, useHarness } from './harness';

async function errorOf(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('azure adapter: errors', () => {
  const harness = useHarness();

  it('a prompt the content filter refused: 400 content_filter naming the filtered categories', async () => {
    harness.upstream.reply(contentFilterErrorReply(['violence', 'jailbreak']));
    const error = await errorOf(harness.adapter.chat(chatRequest(), chatTarget, harness.options()));
    expect(error.toBody()).toEqual({
      error: {
        message: 'The provider "azure" refused the prompt under its content filter: violence (medium), jailbreak.',
        type: 'invalid_request_error',
        param: null,
        code: 'content_filter',
      },
    });
    expect([error.status, error.retryable]).toEqual([400, false]);
  });

  it('the same refusal of a stream, before it starts', async () => {
    harness.upstream.reply(contentFilterErrorReply(['hate']));
    const error = await errorOf(harness.adapter.chatStream(chatRequest(), chatTarget, harness.options()));
    expect([error.status, error.code, error.message]).toEqual([
      400,
      'content_filter',
      'The provider "azure" refused the prompt under its content filter: hate (medium).',
    ]);
  });

  it("other 400s keep the provider's message as upstream_rejected", async () => {
    harness.upstream.reply(azureError(400, 'BadRequest', 'Unsupported parameter: max_tokens.'));
    const error = await errorOf(harness.adapter.chat(chatRequest(), chatTarget, harness.options()));
    expect([error.code, error.message]).toEqual([
      'upstream_rejected',
      'The provider "azure" rejected the request: Unsupported parameter: max_tokens.',
    ]);
  });

  it("a refused key: 502 without the provider's text", async () => {
    const error = await errorOf(harness.keyless.chat(chatRequest(), chatTarget, harness.options()));
    expect(harness.upstream.requests[0]?.headers['api-key']).toBeUndefined();
    expect([error.status, error.code, error.message]).toEqual([
      502,
      'upstream_unavailable',
      'The provider "azure" refused the gateway\'s credentials.',
    ]);
  });

  it('429 with retry-after: retryable, the wait kept', async () => {
    harness.upstream.reply({
      ...azureError(429, '429', 'Rate limit is exceeded. Try again in 7 seconds.'),
      headers: { 'retry-after': '7' },
    });
    const error = await errorOf(harness.adapter.chat(chatRequest(), chatTarget, harness.options()));
    expect([error.status, error.retryable, error.retryAfterMs]).toEqual([502, true, 7000]);
  });

  it('never quotes the key', async () => {
    harness.upstream.reply(azureError(400, 'BadRequest', `Key ${API_KEY} is not valid for this deployment.`));
    const error = await errorOf(harness.adapter.chat(chatRequest(), chatTarget, harness.options()));
    expect(error.message).not.toContain(API_KEY.slice(0, 12));
  });
});

describe('azure adapter: the deployment-path API version', () => {
  const harness = useHarness({ providerOptions: { api_version: '2023-01-01-preview' } });

  it("a version the resource does not serve is the provider's 400", async () => {
    const error = await errorOf(harness.adapter.chat(chatRequest(), chatTarget, harness.options()));
    expect(harness.upstream.requests[0]?.path).toBe('/openai/deployments/gpt-4o-prod/chat/completions?api-version=2023-01-01-preview');
    expect([error.status, error.message]).toEqual([400, 'The provider "azure" rejected the request: API version not supported']);
  });
});
