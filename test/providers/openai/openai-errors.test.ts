import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../server/errors/gateway-error';
import type { ScriptedReply } from '../../helpers/mock-openai-upstream';
import { errorBody } from '../../fixtures/openai/openai-bodies';
import { API_KEY, chatRequest, chatTarget, rejection, useHarness } from './harness';

const keyInMessage = errorBody(
  `Incorrect API key provided: ${API_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
  'invalid_request_error',
  'invalid_api_key',
);

describe('openai adapter: errors', () => {
  const harness = useHarness({ firstByteTimeoutMs: 300 });

  const chatError = async (reply: ScriptedReply): Promise<UpstreamError> => {
    harness.upstream.reply(reply);
    const error = await rejection(harness.adapter.chat(chatRequest(), chatTarget, harness.options()));
    expect(error).toBeInstanceOf(UpstreamError);
    return error as UpstreamError;
  };

  it('maps 500 to a retryable unavailable upstream', async () => {
    const error = await chatError({
      type: 'json',
      status: 500,
      body: errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null),
    });
    expect(error).toMatchObject({
      kind: 'unavailable',
      retryable: true,
      status: 502,
      code: 'upstream_unavailable',
      upstreamStatus: 500,
      retryAfterMs: null,
    });
  });

  it('keeps the retry-after of a 429', async () => {
    const error = await chatError({
      type: 'json',
      status: 429,
      headers: { 'retry-after': '2' },
      body: errorBody('Rate limit reached', 'requests', 'rate_limit_exceeded'),
    });
    expect(error).toMatchObject({ kind: 'unavailable', retryable: true, upstreamStatus: 429, retryAfterMs: 2000 });
  });

  it('prefers retry-after-ms', async () => {
    const error = await chatError({ type: 'json', status: 429, headers: { 'retry-after-ms': '150', 'retry-after': '2' }, body: {} });
    expect(error.retryAfterMs).toBe(150);
  });

  it('maps 401 to a 502 without the provider text', async () => {
    const error = await chatError({ type: 'json', status: 401, body: keyInMessage });
    expect(error).toMatchObject({ kind: 'unavailable', retryable: false, status: 502, upstreamStatus: 401 });
    expect(error.message).toBe('The provider "openai" refused the gateway\'s credentials.');
  });

  it('maps 400 to rejected with the provider message', async () => {
    const error = await chatError({
      type: 'json',
      status: 400,
      body: errorBody(
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        'invalid_request_error',
        'context_length_exceeded',
        'messages',
      ),
    });
    expect(error.toBody()).toEqual({
      error: {
        message:
          'The provider "openai" rejected the request: This model\'s maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.',
        type: 'invalid_request_error',
        param: null,
        code: 'upstream_rejected',
      },
    });
    expect(error.status).toBe(400);
  });

  it.each([
    ['{"error": "text"}', { error: 'model "llama9" not found' }, 'model "llama9" not found'],
    ['vLLM {"object": "error"}', { object: 'error', message: 'bad tool schema', type: 'BadRequestError', code: 400 }, 'bad tool schema'],
    ['FastAPI {"detail"}', { detail: 'messages: field required' }, 'messages: field required'],
  ])('reads the message of the %s error shape', async (_name, body, message) => {
    const error = await chatError({ type: 'json', status: 404, body });
    expect(error.message).toBe(`The provider "openai" rejected the request: ${message}`);
  });

  it('maps a 4xx without a readable body to its status', async () => {
    const error = await chatError({ type: 'raw', status: 422, body: '<html>nope</html>', contentType: 'text/html' });
    expect(error).toMatchObject({ kind: 'rejected', message: 'The provider "openai" rejected the request: HTTP 422' });
  });

  it('maps garbage with 200 to bad_response', async () => {
    const error = await chatError({ type: 'raw', body: 'this is not json', contentType: 'application/json' });
    expect(error).toMatchObject({ kind: 'bad_response', status: 502, code: 'upstream_bad_response', retryable: true });
  });

  it('maps JSON that is not a completion to bad_response', async () => {
    const error = await chatError({ type: 'json', body: { choices: [] } });
    expect(error.kind).toBe('bad_response');
  });

  it('maps a 200 error envelope to an upstream error', async () => {
    const error = await chatError({ type: 'json', body: { error: { message: 'overloaded', code: 503 } } });
    expect(error).toMatchObject({ kind: 'unavailable', retryable: true, upstreamStatus: 503 });
  });

  it('maps a dropped connection to a retryable unavailable upstream', async () => {
    const error = await chatError({ type: 'drop' });
    expect(error).toMatchObject({ kind: 'unavailable', retryable: true });
  });

  it('maps an upstream that never answers to a timeout', async () => {
    const error = await chatError({ type: 'hang' });
    expect(error).toMatchObject({ kind: 'timeout', status: 504, code: 'upstream_timeout', retryable: true });
  });

  it('never puts the provider key in an error', async () => {
    const replies: ScriptedReply[] = [
      { type: 'json', status: 400, body: keyInMessage },
      { type: 'json', status: 401, body: keyInMessage },
      { type: 'json', status: 403, body: keyInMessage },
      {
        type: 'json',
        status: 404,
        body: errorBody(`Key ${API_KEY.slice(0, 12)}...${API_KEY.slice(-6)} has no access`, 'invalid_request_error', null),
      },
      { type: 'json', status: 500, body: keyInMessage },
      { type: 'json', body: keyInMessage },
      { type: 'raw', body: API_KEY },
    ];
    for (const reply of replies) {
      const error = await chatError(reply);
      expect(JSON.stringify(error.toBody())).not.toContain(API_KEY);
      expect(error.message).not.toContain(API_KEY.slice(8, 20));
    }
    harness.upstream.reply({ type: 'sse', done: false, events: [{ data: keyInMessage }] });
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, harness.options());
    const error = (await rejection(
      (async () => {
        for await (const _ of stream.chunks);
      })(),
    )) as Error;
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).not.toContain(API_KEY.slice(8, 20));
  });
});
