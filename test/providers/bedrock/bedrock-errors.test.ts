import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../server/errors/gateway-error';
import { converseReply, errorReply, MOCK_ACCESS_KEY_ID } from '../../helpers/mock-bedrock-upstream';
import { callOptions, chatRequest, chatTarget, rejectionOf, useHarness } from './harness';

/** docs/bedrock.md, "Errors": each Bedrock error type and what the gateway makes of it. */
describe('bedrock adapter: errors', () => {
  const harness = useHarness();

  it.each([
    ['ThrottlingException', 429, { code: 'upstream_unavailable', retryable: true, upstreamStatus: 429 }],
    ['ServiceUnavailableException', 503, { code: 'upstream_unavailable', retryable: true, upstreamStatus: 503 }],
    ['ModelNotReadyException', 429, { code: 'upstream_unavailable', retryable: true, upstreamStatus: 503 }],
    ['InternalServerException', 500, { code: 'upstream_unavailable', retryable: true, upstreamStatus: 500 }],
    ['ModelTimeoutException', 408, { code: 'upstream_timeout', retryable: true, upstreamStatus: 408 }],
    ['AccessDeniedException', 403, { code: 'upstream_unavailable', retryable: false, upstreamStatus: 403 }],
    ['ResourceNotFoundException', 404, { code: 'upstream_rejected', status: 400, retryable: false, upstreamStatus: 404 }],
  ])('maps %s (HTTP %i)', async (type, status, expected) => {
    harness.upstream.reply(errorReply(type, `Bedrock says ${type}.`, status));
    const error = await rejectionOf(harness.adapter.chat(chatRequest(), chatTarget, callOptions()));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject(expected);
  });

  it('passes a ValidationException on as the caller’s 400, with its message', async () => {
    harness.upstream.reply(
      errorReply('ValidationException', 'The model returned the following errors: messages: roles must alternate', 400),
    );
    const error = await rejectionOf(harness.adapter.chat(chatRequest(), chatTarget, callOptions()));
    expect(error).toMatchObject({
      status: 400,
      code: 'upstream_rejected',
      message:
        'The provider "bedrock" rejected the request: The model returned the following errors: messages: roles must alternate (ValidationException)',
    });
  });

  it('keeps the retry hint of a throttle', async () => {
    harness.upstream.reply(
      errorReply('ThrottlingException', 'Too many requests, please wait before trying again.', 429, { 'retry-after': '3' }),
    );
    expect(await rejectionOf(harness.adapter.chat(chatRequest(), chatTarget, callOptions()))).toMatchObject({ retryAfterMs: 3000 });
  });

  it('is refused by the signature check with a wrong secret, as AWS refuses it, and says nothing of the secret', async () => {
    const wrongSecret = 'WRONGsecretWRONGsecretWRONGsecret0123456';
    const adapter = harness.create({
      credentials: () => Promise.resolve({ accessKeyId: MOCK_ACCESS_KEY_ID, secretAccessKey: wrongSecret }),
    });
    harness.upstream.reply(converseReply([{ text: 'Signed.' }]));
    const error = await rejectionOf(adapter.chat(chatRequest(), chatTarget, callOptions()));
    expect(error).toMatchObject({ code: 'upstream_unavailable', retryable: false, upstreamStatus: 403 });
    expect((error as Error).message).toBe('The provider "bedrock" refused the gateway\'s credentials.');
    expect(JSON.stringify(error)).not.toContain(wrongSecret);
    // Refused before any answer: the queued reply goes to the next, correctly signed, call.
    const { completion } = await harness.adapter.chat(chatRequest(), chatTarget, callOptions());
    expect(completion.choices[0]?.message.content).toBe('Signed.');
  });

  it('is refused with an unknown access key, and with a wrong API key', async () => {
    const unknown = harness.create({
      credentials: () => Promise.resolve({ accessKeyId: 'AKIAUNKNOWN000000000', secretAccessKey: 'x'.repeat(40) }),
    });
    expect(await rejectionOf(unknown.chat(chatRequest(), chatTarget, callOptions()))).toMatchObject({ upstreamStatus: 403 });
    const wrongKey = harness.create({ apiKey: 'ABSKwrong-bedrock-api-key-0123456789' });
    expect(await rejectionOf(wrongKey.chat(chatRequest(), chatTarget, callOptions()))).toMatchObject({
      upstreamStatus: 403,
      retryable: false,
    });
  });

  it('answers 502 without calling out when the credential chain has nothing', async () => {
    const none = harness.create({ credentials: () => Promise.reject(new Error('Could not load credentials from any providers')) });
    const error = await rejectionOf(none.chat(chatRequest(), chatTarget, callOptions()));
    expect(error).toMatchObject({
      code: 'upstream_unavailable',
      retryable: false,
      message: 'The provider "bedrock" has no usable AWS credentials.',
    });
    expect(harness.upstream.requests).toHaveLength(0);
  });
});
