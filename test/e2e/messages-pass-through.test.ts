import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { errorBody, events, MOCK_MODEL, messageBody, textStream } from '../helpers/mock-anthropic-upstream';
import { countTextTokens } from '../../server/usage/count-tokens';
import { rawPost, streamedMessage, usageFor, useAnthropicE2e } from './helpers';

/**
 * POST /v1/messages to an `anthropic`-type model, driven by the official @anthropic-ai/sdk:
 * the body reaches the upstream as the client sent it (only `model` replaced, the beta header
 * passed on), the reply and the stream come back as the upstream sent them, the usage event
 * has the upstream's counts (cache reads and writes counted as input).
 */
const PROVIDER_KEY = 'sk-ant-api03-E2eMessagesKey-0123456789abcdefghijklmnop';

describe('e2e: /v1/messages passed through to an anthropic-type upstream', () => {
  const fixture = useAnthropicE2e('claude-haiku', PROVIDER_KEY);

  it('forwards the body with only the model replaced, unknown fields and the beta header included', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({
      type: 'json',
      body: messageBody([{ type: 'text', text: 'Hi.' }], 'end_turn', { input_tokens: 30, output_tokens: 3, cache_read_input_tokens: 100 }),
    });
    const body = {
      model: 'claude-haiku',
      max_tokens: 64,
      system: [{ type: 'text' as const, text: 'Be brief.', cache_control: { type: 'ephemeral' as const } }],
      messages: [{ role: 'user' as const, content: 'Hello' }],
      metadata: { user_id: 'user-1' },
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
    };
    const { data, response } = await fixture.e2e.anthropic.messages
      .create({ ...body, context_management: { edits: [] } } as Anthropic.MessageCreateParamsNonStreaming, {
        headers: { 'anthropic-beta': 'context-management-2025-06-27' },
      })
      .withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'Hi.' }]);
    expect(data.model).toBe(MOCK_MODEL);
    const sent = upstream.requests[0];
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.body).toEqual({ ...body, context_management: { edits: [] }, model: MOCK_MODEL });
    expect(sent?.headers['anthropic-beta']).toBe('context-management-2025-06-27');
    expect(sent?.headers['x-api-key']).toBe(PROVIDER_KEY);
    expect(response.headers.get('x-ratelimit-limit-requests')).toBeTruthy();
    const usage = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(usage).toMatchObject({ model: 'claude-haiku', promptTokens: 130, completionTokens: 3, estimated: false, status: 200 });
  });

  it('relays a stream as sent and meters it; the SDK assembles the message', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'sse', events: textStream(['Hel', 'lo!'], 'end_turn', { input_tokens: 25, output_tokens: 15 }), slices: [7] });
    const { message, requestId } = await streamedMessage(fixture.e2e, {
      model: 'claude-haiku',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello!' }]);
    expect(message.stop_reason).toBe('end_turn');
    const usage = await usageFor(e2e, requestId);
    expect(usage).toMatchObject({ promptTokens: 25, completionTokens: 15, stream: true, status: 200 });
  });

  it('runs a tool-use round trip, the tool blocks passed as sent', async () => {
    const { upstream } = fixture;
    const weather: Anthropic.Tool = {
      name: 'get_weather',
      input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      cache_control: { type: 'ephemeral' },
    };
    upstream.reply(
      { type: 'json', body: messageBody([{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo' } }], 'tool_use') },
      { type: 'json', body: messageBody([{ type: 'text', text: 'Cold.' }], 'end_turn') },
    );
    const question: Anthropic.MessageParam = { role: 'user', content: 'Oslo?' };
    const first = await fixture.e2e.anthropic.messages.create({
      model: 'claude-haiku',
      max_tokens: 64,
      tools: [weather],
      messages: [question],
    });
    expect(first.stop_reason).toBe('tool_use');
    const result: Anthropic.MessageParam = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '-3°C', is_error: false }],
    };
    const second = await fixture.e2e.anthropic.messages.create({
      model: 'claude-haiku',
      max_tokens: 64,
      tools: [weather],
      messages: [question, { role: 'assistant', content: first.content }, result],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Cold.' }]);
    expect(upstream.requests[1]?.body).toMatchObject({
      tools: [weather],
      messages: [question, { role: 'assistant', content: first.content }, result],
    });
  });

  it('accepts ?beta=true and Authorization: Bearer, as Claude Code sends them', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'sse', events: textStream(['ok']) });
    const response = await rawPost(e2e, '/v1/messages?beta=true', {
      model: 'claude-haiku',
      max_tokens: 8,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    expect(text).toContain('event: message_start');
    expect(text).toContain('"text":"ok"');
  });

  it('passes an error event through and records its status', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'sse', events: [events.messageStart(5), events.error('overloaded_error', 'Overloaded')] });
    const response = await rawPost(e2e, '/v1/messages', {
      model: 'claude-haiku',
      max_tokens: 8,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const text = await response.text();
    expect(text).toContain('event: error');
    const usage = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(usage.status).toBeGreaterThanOrEqual(500);
  });

  it("answers an upstream 400 in Anthropic's shape, and the SDK raises BadRequestError", async () => {
    const { upstream } = fixture;
    upstream.reply({ type: 'json', status: 400, body: errorBody('invalid_request_error', 'messages: roles must alternate') });
    const error = await fixture.e2e.anthropic.messages
      .create({ model: 'claude-haiku', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    expect((error as Error).message).toContain('roles must alternate');
  });

  it('counts tokens with the upstream count endpoint', async () => {
    const { upstream } = fixture;
    upstream.reply({ type: 'json', body: { input_tokens: 42 } });
    const count = await fixture.e2e.anthropic.messages.countTokens({
      model: 'claude-haiku',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(count).toEqual({ input_tokens: 42 });
    expect(upstream.requests[0]?.path).toBe('/v1/messages/count_tokens');
    expect(upstream.requests[0]?.body).toMatchObject({ model: MOCK_MODEL });
  });

  it("counts with the gateway's tokenizer when the upstream has no count endpoint (404)", async () => {
    const { upstream } = fixture;
    upstream.reply({ type: 'json', status: 404, body: errorBody('not_found_error', 'Not found') });
    const count = await fixture.e2e.anthropic.messages.countTokens({
      model: 'claude-haiku',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(count.input_tokens).toBeGreaterThan(0);
  });

  it("refuses bad input and bad keys in Anthropic's shape", async () => {
    const { upstream, e2e } = fixture;
    const missing = await rawPost(e2e, '/v1/messages', { model: 'claude-haiku', messages: [] });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const unknownModel = await rawPost(e2e, '/v1/messages', { model: 'nope', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    expect(unknownModel.status).toBe(404);
    expect(await unknownModel.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const badJson = await fetch(`${e2e.gateway.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': e2e.apiKey, 'content-type': 'application/json' },
      body: '{',
    });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const noKey = new Anthropic({ apiKey: 'sk-wrong', baseURL: e2e.gateway.baseUrl, maxRetries: 0 });
    const error = await noKey.messages
      .create({ model: 'claude-haiku', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(upstream.requests).toHaveLength(0);
  });

  it("answers past the key's limit with 429 rate_limit_error, retry-after and the rate-limit headers", async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'one' }], 'end_turn') });
    const accountId = await e2e.gateway.createAccount('limited');
    const { key } = await e2e.gateway.createKey(accountId, { rpm: 1 });
    const limited = new Anthropic({ apiKey: key, baseURL: e2e.gateway.baseUrl, maxRetries: 0 });
    const body = { model: 'claude-haiku', max_tokens: 8, messages: [{ role: 'user' as const, content: 'x' }] };
    await limited.messages.create(body);
    const error = await limited.messages.create(body).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const headers = (error as InstanceType<typeof Anthropic.RateLimitError>).headers;
    expect(Number(headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(headers?.get('x-ratelimit-remaining-requests')).toBe('0');
    expect((error as InstanceType<typeof Anthropic.RateLimitError>).error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error' },
    });
  });

  it('stops the upstream when the client goes away mid-stream, and records the request once', async () => {
    const { upstream, e2e } = fixture;
    upstream.reply({ type: 'sse', events: [events.messageStart(9), events.textStart(0), events.textDelta(0, 'partial')], hold: true });
    const controller = new AbortController();
    const response = await rawPost(
      e2e,
      '/v1/messages',
      { model: 'claude-haiku', max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'x' }] },
      { signal: controller.signal },
    );
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await upstream.requests[0]?.aborted;
    const usage = await usageFor(e2e, response.headers.get('x-request-id'));
    expect(usage).toMatchObject({ status: 499, promptTokens: 9 });
    expect(e2e.usage.events.filter((event) => event.requestId === response.headers.get('x-request-id'))).toHaveLength(1);
  });

  it('bills the count of what the reply generated, flagged estimated, when the upstream reports no usage', async () => {
    const { upstream, e2e } = fixture;
    const { usage: _dropped, ...withoutUsage } = messageBody(
      [{ type: 'text', text: 'Bonjour tout le monde, ceci est une réponse.' }],
      'end_turn',
    );
    upstream.reply({ type: 'json', body: withoutUsage });
    const body = { model: 'claude-haiku', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Say hello in French' }] };
    const replied = await rawPost(e2e, '/v1/messages', body);
    expect(replied.status).toBe(200);
    const usage = await usageFor(e2e, replied.headers.get('x-request-id'));
    // The tokenizer's count of the reply's text (10 o200k tokens), not of its JSON (about 80).
    expect(usage).toMatchObject({ completionTokens: countTextTokens('Bonjour tout le monde, ceci est une réponse.'), estimated: true });
    expect(usage?.completionTokens).toBeLessThan(15);

    const { usage: _none, ...startWithoutUsage } = messageBody([], null);
    upstream.reply({
      type: 'sse',
      events: [
        { type: 'message_start', message: startWithoutUsage },
        events.textStart(0),
        events.textDelta(0, 'Bonjour '),
        events.textDelta(0, 'à tous.'),
        events.blockStop(0),
        events.messageStop(),
      ],
    });
    const streamed = await rawPost(e2e, '/v1/messages', { ...body, stream: true });
    await streamed.text();
    const streamedUsage = await usageFor(e2e, streamed.headers.get('x-request-id'));
    expect(streamedUsage).toMatchObject({ completionTokens: countTextTokens('Bonjour à tous.'), estimated: true });
  });
});
