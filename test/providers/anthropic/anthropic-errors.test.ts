import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../../contract';
import { GatewayError, UpstreamError } from '../../../server/errors/gateway-error';
import {
  errorBody,
  events,
  messageBody,
  textStream,
  type MockAnthropicUpstream,
  type MockReply,
} from '../../helpers/mock-anthropic-upstream';
import { TEST_API_KEY, TEST_TARGET, callOptions, useAnthropicTestProvider } from './harness';

const hello: ChatCompletionRequest = { model: 'claude-haiku', messages: [{ role: 'user', content: 'Hello' }] };
const keyFragment = TEST_API_KEY.slice(10, 30);

describe('Anthropic adapter: errors', () => {
  const { upstream, client } = useAnthropicTestProvider();
  /** Every error the adapter produced, checked for the key at the end. */
  const seen: unknown[] = [];

  async function chatError(reply: MockReply): Promise<UpstreamError> {
    upstream.reply(reply);
    const error = await client.provider.chat(hello, TEST_TARGET, callOptions()).then(
      () => null,
      (caught: unknown) => caught,
    );
    seen.push(error);
    expect(error).toBeInstanceOf(UpstreamError);
    return error as UpstreamError;
  }

  async function streamError(reply: MockReply): Promise<{ error: UpstreamError; chunks: ChatCompletionChunk[] }> {
    upstream.reply(reply);
    const chunks: ChatCompletionChunk[] = [];
    let error: unknown = null;
    try {
      const stream = await client.provider.chatStream({ ...hello, stream: true }, TEST_TARGET, callOptions());
      for await (const chunk of stream.chunks) chunks.push(chunk);
    } catch (caught) {
      error = caught;
    }
    seen.push(error);
    expect(error).toBeInstanceOf(UpstreamError);
    return { error: error as UpstreamError, chunks };
  }

  it('400: rejected, with the provider message, not retryable', async () => {
    const error = await chatError({
      type: 'json',
      status: 400,
      body: errorBody('invalid_request_error', 'prompt is too long: 250123 tokens > 200000 maximum'),
    });
    expect(error).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      code: 'upstream_rejected',
      retryable: false,
      upstreamStatus: 400,
    });
    expect(error.message).toContain('prompt is too long: 250123 tokens > 200000 maximum');
  });

  it('400 quoting the key: the key is redacted', async () => {
    const error = await chatError({
      type: 'json',
      status: 400,
      body: errorBody('invalid_request_error', `bad request for key ${TEST_API_KEY}`),
    });
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(keyFragment);
  });

  it('401: a 502 that does not pass on the provider text', async () => {
    const error = await chatError({
      type: 'json',
      status: 401,
      body: errorBody('authentication_error', `invalid x-api-key ${TEST_API_KEY}`),
    });
    expect(error).toMatchObject({
      status: 502,
      type: 'upstream_error',
      code: 'upstream_unavailable',
      retryable: false,
      upstreamStatus: 401,
    });
    expect(error.message).not.toContain('invalid x-api-key');
  });

  it('402 billing_error: a 502, not blamed on the caller', async () => {
    const error = await chatError({ type: 'json', status: 402, body: errorBody('billing_error', 'Your credit balance is too low.') });
    expect(error).toMatchObject({ status: 502, code: 'upstream_unavailable', retryable: false });
  });

  it.each([
    [529, 'overloaded_error', 'Overloaded'],
    [500, 'api_error', 'Internal server error'],
    [429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'],
  ])('%i %s: retryable', async (status, type, message) => {
    const error = await chatError({ type: 'json', status, body: errorBody(type, message) });
    expect(error).toMatchObject({ status: 502, code: 'upstream_unavailable', retryable: true, upstreamStatus: status });
  });

  it('429 passes on the retry-after wait', async () => {
    const error = await chatError({
      type: 'json',
      status: 429,
      body: errorBody('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
      headers: { 'retry-after': '7' },
    });
    expect(error).toMatchObject({ retryable: true, upstreamStatus: 429, retryAfterMs: 7000 });
  });

  it('an error status with an HTML body still maps by status', async () => {
    const error = await chatError({ type: 'raw', status: 503, body: '<html>503 Service Unavailable</html>', contentType: 'text/html' });
    expect(error).toMatchObject({ status: 502, retryable: true, upstreamStatus: 503 });
  });

  it.each([
    ['a body that is not JSON', { type: 'raw', body: '{"id": "msg_01", "content": [', contentType: 'application/json' }],
    ['JSON of another shape', { type: 'json', body: { hello: 'world' } }],
    ['a malformed tool_use block', { type: 'json', body: messageBody([{ type: 'tool_use', name: 'f' }], 'tool_use') }],
  ] satisfies [string, MockReply][])('200 with %s: bad_response', async (_name, reply) => {
    const error = await chatError(reply);
    expect(error).toMatchObject({ status: 502, code: 'upstream_bad_response', kind: 'bad_response' });
  });

  it('a connection dropped before the answer: unavailable, retryable', async () => {
    const error = await chatError({ type: 'drop' });
    expect(error).toMatchObject({ status: 502, code: 'upstream_unavailable', retryable: true });
  });

  it('streaming: an error status rejects chatStream itself (before any chunk), so it can be retried', async () => {
    upstream.reply({ type: 'json', status: 529, body: errorBody('overloaded_error', 'Overloaded') });
    const rejection = await client.provider.chatStream({ ...hello, stream: true }, TEST_TARGET, callOptions()).then(
      () => null,
      (caught: unknown) => caught,
    );
    seen.push(rejection);
    expect(rejection).toMatchObject({ retryable: true, upstreamStatus: 529 });
  });

  it('streaming: a JSON body where an event stream was expected rejects chatStream', async () => {
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'x' }], 'end_turn') });
    const rejection = await client.provider.chatStream({ ...hello, stream: true }, TEST_TARGET, callOptions()).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(rejection).toMatchObject({ code: 'upstream_bad_response' });
  });

  it('streaming: an `error` event mid-stream is thrown from the iterator', async () => {
    const { error, chunks } = await streamError({
      type: 'sse',
      events: [events.messageStart(10), events.textStart(0), events.textDelta(0, 'Hel'), events.error('overloaded_error', 'Overloaded')],
    });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '' }, { content: 'Hel' }]);
    expect(error).toMatchObject({ status: 502, code: 'upstream_unavailable', retryable: true, upstreamStatus: 529 });
    expect(error.message).not.toContain('Overloaded');
  });

  it('streaming: an invalid_request_error event is a rejection with its message', async () => {
    const { error } = await streamError({
      type: 'sse',
      events: [events.messageStart(10), events.error('invalid_request_error', `Output blocked for ${TEST_API_KEY}`)],
    });
    expect(error).toMatchObject({ status: 400, code: 'upstream_rejected' });
    expect(error.message).toContain('Output blocked');
    expect(error.message).not.toContain(keyFragment);
  });

  it('streaming: a connection dropped mid-stream is thrown from the iterator', async () => {
    const { error, chunks } = await streamError({ type: 'sse', events: textStream(['one', 'two', 'three']), dropAfter: 4 });
    expect(chunks.length).toBeGreaterThan(0);
    expect(error.retryable).toBe(true);
  });

  it('streaming: a stream that ends without message_stop is thrown from the iterator', async () => {
    const { error } = await streamError({ type: 'sse', events: textStream(['one', 'two']).slice(0, -1) });
    expect(error).toMatchObject({ code: 'upstream_bad_response', retryable: true });
  });

  it('streaming: garbage data is a bad_response', async () => {
    const { error } = await streamError({
      type: 'sse',
      events: [events.messageStart(10), 'event: content_block_delta\ndata: {"type": "content_blo\n\n'],
    });
    expect(error).toMatchObject({ code: 'upstream_bad_response' });
  });

  it('streaming: a known event of the wrong shape is a bad_response', async () => {
    const { error } = await streamError({
      type: 'sse',
      events: [events.messageStart(10), { type: 'content_block_delta', index: 0, delta: { type: 'text_delta' } }],
    });
    expect(error).toMatchObject({ code: 'upstream_bad_response' });
  });

  it('embeddings: Anthropic has none', async () => {
    const error = await client.provider.embeddings({ model: 'claude-haiku', input: 'hello' }, TEST_TARGET, callOptions()).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'unsupported_capability', param: 'model' });
  });

  it('no error message, body or cause text contains the API key', () => {
    expect(seen.length).toBeGreaterThan(10);
    for (const error of seen) {
      expect(error).toBeInstanceOf(GatewayError);
      const gatewayError = error as GatewayError;
      const text = [gatewayError.message, JSON.stringify(gatewayError.toBody()), String(gatewayError.cause ?? '')].join('\n');
      expect(text).not.toContain(TEST_API_KEY);
      expect(text).not.toContain(keyFragment);
    }
  });
});

describe('Anthropic adapter: cancellation', () => {
  const { upstream, client } = useAnthropicTestProvider();

  it('the abort signal cancels a pending request: the upstream sees the connection close', async () => {
    upstream.reply({ type: 'hang' });
    const controller = new AbortController();
    const pending = client.provider.chat(hello, TEST_TARGET, callOptions(controller.signal));
    const recorded = await waitForRequest(upstream, 1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    await recorded.aborted;
    expect(recorded.wasAborted()).toBe(true);
  });

  it('the abort signal cancels a stream in progress', async () => {
    upstream.reply({ type: 'sse', events: [events.messageStart(10), events.textStart(0), events.textDelta(0, 'Hel')], hold: true });
    const controller = new AbortController();
    const stream = await client.provider.chatStream({ ...hello, stream: true }, TEST_TARGET, callOptions(controller.signal));
    const recorded = upstream.requests.at(-1);
    const iterator = stream.chunks[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(drainIterator(iterator)).rejects.toThrow();
    await recorded?.aborted;
    expect(recorded?.wasAborted()).toBe(true);
  });

  it('a consumer that stops early releases the upstream connection', async () => {
    upstream.reply({ type: 'sse', events: [events.messageStart(10), events.textStart(0), events.textDelta(0, 'Hel')], hold: true });
    const stream = await client.provider.chatStream({ ...hello, stream: true }, TEST_TARGET, callOptions());
    const recorded = upstream.requests.at(-1);
    for await (const chunk of stream.chunks) {
      if (chunk.choices[0]?.delta.content === 'Hel') break;
    }
    await recorded?.aborted;
    expect(recorded?.wasAborted()).toBe(true);
  });
});

async function waitForRequest(upstream: MockAnthropicUpstream, count: number): Promise<MockAnthropicUpstream['requests'][number]> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const recorded = upstream.requests[count - 1];
    if (recorded) return recorded;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('The mock upstream received no request.');
}

async function drainIterator(iterator: AsyncIterator<ChatCompletionChunk>): Promise<void> {
  for (;;) {
    const next = await iterator.next();
    if (next.done) return;
  }
}
