import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../server/errors/gateway-error';
import { isAbortError } from '../../../server/providers/transport-errors';
import type { MockReply } from '../../helpers/mock-gemini-upstream';
import { apiKeyInvalidError, googleError, streamEvent, textReply } from './fixtures';
import { API_KEY, callOptions, chatRequest, chatTarget, rejectionOf, useHarness } from './harness';

/** Everything a client or a log line could see of an error. */
function visibleText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `${error.cause.name} ${error.cause.message}` : String(error.cause ?? '');
  const body = error instanceof UpstreamError ? JSON.stringify(error.toBody()) : '';
  return `${error.name} ${error.message} ${error.stack ?? ''} ${cause} ${body}`;
}

describe('Gemini error mapping', () => {
  const harness = useHarness();

  async function chatError(reply: MockReply): Promise<unknown> {
    harness.upstream.reply(reply);
    return rejectionOf(harness.adapter.chat(chatRequest(), chatTarget, callOptions()));
  }

  it("passes a 400 on as the caller's mistake, with Google's message", async () => {
    const error = await chatError({
      type: 'json',
      status: 400,
      body: googleError(400, 'INVALID_ARGUMENT', 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).'),
    });
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      code: 'upstream_rejected',
      kind: 'rejected',
      retryable: false,
    });
    expect((error as Error).message).toContain('exceeds the maximum number of tokens allowed');
  });

  it('maps an invalid API key (400 API_KEY_INVALID) to a 502 credential error without its text', async () => {
    const error = await chatError({ type: 'json', status: 400, body: apiKeyInvalidError });
    expect(error).toMatchObject({ status: 502, code: 'upstream_unavailable', kind: 'unavailable', retryable: false });
    expect(visibleText(error)).not.toContain('API key not valid');
  });

  it('maps 401/403 to the credential error', async () => {
    for (const [status, name] of [
      [401, 'UNAUTHENTICATED'],
      [403, 'PERMISSION_DENIED'],
    ] as const) {
      const error = await chatError({ type: 'json', status, body: googleError(status, name, `Denied for key ${API_KEY}.`) });
      expect(error).toMatchObject({ status: 502, kind: 'unavailable', retryable: false });
      expect(visibleText(error)).not.toContain(API_KEY);
    }
  });

  it.each([
    [429, 'RESOURCE_EXHAUSTED', 502],
    [500, 'INTERNAL', 502],
    [503, 'UNAVAILABLE', 502],
    [504, 'DEADLINE_EXCEEDED', 504],
  ])('marks %i %s as retryable', async (status, name, gatewayStatus) => {
    const error = await chatError({ type: 'json', status, body: googleError(status, name, 'Try again later.') });
    expect(error).toMatchObject({ status: gatewayStatus, retryable: true, upstreamStatus: status });
  });

  it("reads the wait of a 429 from Google's RetryInfo, or from a retry-after header", async () => {
    const quota = googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.', [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generate_content_free_tier_requests' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '21s' },
    ]);
    expect(await chatError({ type: 'json', status: 429, body: quota })).toMatchObject({ retryable: true, retryAfterMs: 21_000 });
    const withHeader = await chatError({
      type: 'json',
      status: 503,
      body: googleError(503, 'UNAVAILABLE', 'Overloaded.'),
      headers: { 'retry-after': '3' },
    });
    expect(withHeader).toMatchObject({ retryable: true, retryAfterMs: 3_000 });
    expect(await chatError({ type: 'json', status: 500, body: googleError(500, 'INTERNAL', 'Oops.') })).toMatchObject({
      retryAfterMs: null,
    });
  });

  it('maps an error page that is not JSON by its status', async () => {
    const error = await chatError({ type: 'raw', status: 502, body: '<html><body>Bad Gateway</body></html>', contentType: 'text/html' });
    expect(error).toMatchObject({ status: 502, kind: 'unavailable', retryable: true });
    const rejected = await chatError({ type: 'raw', status: 404, body: 'Not Found' });
    expect(rejected).toMatchObject({ status: 400, kind: 'rejected' });
    expect((rejected as Error).message).toContain('HTTP 404');
  });

  it.each([
    ['HTML with a 200', { type: 'raw', body: '<html>oops</html>', contentType: 'text/html' }],
    ['truncated JSON', { type: 'raw', body: '{"candidates": [{"content"', contentType: 'application/json' }],
    ['JSON of the wrong shape', { type: 'json', body: { candidates: 'none' } }],
  ] satisfies [string, MockReply][])('maps garbage (%s) to bad_response', async (_name, reply) => {
    const error = await chatError(reply);
    expect(error).toMatchObject({ status: 502, code: 'upstream_bad_response', kind: 'bad_response', retryable: true });
  });

  it('maps a dropped connection to a retryable unavailable error', async () => {
    const error = await chatError({ type: 'drop' });
    expect(error).toMatchObject({ status: 502, kind: 'unavailable', retryable: true });
  });

  it('never puts the key in the URL, and scrubs it from quoted messages', async () => {
    const error = await chatError({
      type: 'json',
      status: 400,
      body: googleError(400, 'INVALID_ARGUMENT', `Request with key ${API_KEY} (prefix ${API_KEY.slice(0, 14)}) is malformed.`),
    });
    expect((error as Error).message).toContain('is malformed');
    expect(visibleText(error)).not.toContain(API_KEY);
    expect(visibleText(error)).not.toContain(API_KEY.slice(0, 14));

    harness.upstream.reply(
      { type: 'json', body: textReply('ok') },
      { type: 'sse', events: [streamEvent([{ text: 'ok' }], { finishReason: 'STOP' })] },
    );
    await harness.adapter.chat(chatRequest(), chatTarget, callOptions());
    await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, callOptions());
    for (const request of harness.upstream.requests) {
      expect(request.path).not.toContain(API_KEY);
      expect(request.path).not.toMatch(/[?&]key=/);
      expect(request.headers['x-goog-api-key']).toBe(API_KEY);
    }
  });

  it('an abort cancels a pending chat request upstream', async () => {
    harness.upstream.reply({ type: 'hang' });
    const controller = new AbortController();
    const pending = rejectionOf(harness.adapter.chat(chatRequest(), chatTarget, callOptions(controller.signal)));
    await waitFor(() => harness.upstream.requests.length === 1);
    controller.abort();
    expect(isAbortError(await pending)).toBe(true);
    await harness.upstream.requests[0]?.aborted;
    expect(harness.upstream.requests[0]?.wasAborted()).toBe(true);
  });

  it('an abort during a stream makes the iterator throw and cancels upstream', async () => {
    harness.upstream.reply({ type: 'sse', events: [streamEvent([{ text: 'first' }])], hold: true });
    const controller = new AbortController();
    const stream = await harness.adapter.chatStream(chatRequest({ stream: true }), chatTarget, callOptions(controller.signal));
    const error = await rejectionOf(
      (async () => {
        for await (const chunk of stream.chunks) {
          if (chunk.choices[0]?.delta.content === 'first') controller.abort();
        }
      })(),
    );
    expect(isAbortError(error)).toBe(true);
    await harness.upstream.requests[0]?.aborted;
    expect(harness.upstream.requests[0]?.wasAborted()).toBe(true);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('Condition not met in time.');
}
