import { describe, expect, it, vi } from 'vitest';
import type { ChatCompletionRequest } from '../../contract';
import { admit, defaultCompletionReserve, passesThrough, type AdmissionRequest } from '../../server/completions/admission';
import { GatewayError } from '../../server/errors/gateway-error';
import { admissionHarness, fakeClient, fakeKey, newContext, type Harness } from './admission-fakes';

/** The admission step (completions/admission.ts) on fakes: no HTTP, no upstream. */
const BODY: ChatCompletionRequest = { model: 'chat-plain', messages: [{ role: 'user', content: 'Hello' }] };

function request(overrides: Partial<AdmissionRequest<ChatCompletionRequest>> = {}): AdmissionRequest<ChatCompletionRequest> {
  return {
    key: fakeKey(),
    context: newContext(),
    client: fakeClient(),
    model: 'chat-plain',
    kind: 'chat',
    upstream: 'chat',
    stream: false,
    promptTokens: 40,
    completionTokens: null,
    fields: { prompt: 'messages', completion: 'max_tokens' },
    body: BODY,
    ...overrides,
  };
}

async function refusal(harness: Harness, overrides: Partial<AdmissionRequest<ChatCompletionRequest>>): Promise<GatewayError> {
  let error: unknown = null;
  try {
    await admit(harness.dependencies, request(overrides)).meter;
  } catch (thrown) {
    error = thrown;
  }
  if (!(error instanceof GatewayError)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}

describe('admit', () => {
  it('resolves the model, names it in the context, and reserves the prompt plus the default reply bound', async () => {
    const { dependencies, usage } = admissionHarness();
    const context = newContext();
    const admission = admit(dependencies, request({ context, stream: false }));
    await admission.meter;
    expect(admission.model.id).toBe('chat-plain');
    expect(admission.attempts.map((attempt) => attempt.model.id)).toEqual(['chat-plain', 'chat-claude']);
    expect(admission.promptTokens).toBe(40);
    expect([context.model, context.provider, context.stream]).toEqual(['chat-plain', 'plain', false]);
    // 40 + min(max_output_tokens 1000, 4096) taken from the key's 10000 tokens per minute.
    expect(context.responseHeaders).toMatchObject({ 'x-ratelimit-remaining-requests': '2', 'x-ratelimit-remaining-tokens': '8960' });
    expect(usage.events).toHaveLength(0);
  });

  it("reserves the request's own bound when it sets one", async () => {
    const { dependencies } = admissionHarness();
    const context = newContext();
    await admit(dependencies, request({ context, completionTokens: 10 })).meter;
    expect(context.responseHeaders?.['x-ratelimit-remaining-tokens']).toBe('9950');
  });

  it('refuses an unknown model (404), a model of the other kind and a model the key may not use, before reserving', async () => {
    const harness = admissionHarness();
    expect((await refusal(harness, { model: 'nope' })).code).toBe('model_not_found');
    expect((await refusal(harness, { model: 'embed' })).status).toBe(400);
    const forbidden = await refusal(harness, { key: fakeKey({ models: ['chat-claude'] }) });
    expect(forbidden.status).toBe(403);
    const context = newContext();
    await admit(harness.dependencies, request({ context })).meter;
    expect(context.responseHeaders?.['x-ratelimit-remaining-requests']).toBe('2');
  });

  it("runs the route's check with the model, its attempts and the body, before reserving", async () => {
    const harness = admissionHarness();
    const check = vi.fn(() => {
      throw new GatewayError(400, 'invalid_request_error', 'unsupported_capability', 'No tools here.');
    });
    expect((await refusal(harness, { check })).code).toBe('unsupported_capability');
    expect(check).toHaveBeenCalledOnce();
    const [model, attempts, body] = check.mock.calls[0] as unknown as [{ id: string }, unknown[], unknown];
    expect([model.id, attempts.length, body]).toEqual(['chat-plain', 2, BODY]);
    const context = newContext();
    await admit(harness.dependencies, request({ context })).meter;
    expect(context.responseHeaders?.['x-ratelimit-remaining-requests']).toBe('2');
  });

  it('refuses a request that can never fit the key (400 request_too_large), naming the route fields', async () => {
    const harness = admissionHarness();
    const fields = { prompt: 'input', completion: 'max_output_tokens' };
    const reply = await refusal(harness, { completionTokens: 20_000, fields });
    expect([reply.status, reply.code, reply.param]).toEqual([400, 'request_too_large', 'max_output_tokens']);
    expect((await refusal(harness, { promptTokens: 20_000, fields })).param).toBe('input');
  });

  it('refuses past the requests per minute with 429, naming the limit in the context', async () => {
    const harness = admissionHarness();
    for (let index = 0; index < 3; index++) await admit(harness.dependencies, request()).meter;
    const context = newContext();
    const refused = await refusal(harness, { context });
    expect(refused.status).toBe(429);
    expect(context.rateLimitExceeded).toBe('requests');
    harness.clock.now += 60_000;
    await expect(admit(harness.dependencies, request()).meter).resolves.toBeDefined();
  });

  it('holds a stream slot until the client closes; past the limit 429 with retry-after 1 and nothing recorded', async () => {
    const harness = admissionHarness();
    const client = fakeClient();
    await admit(harness.dependencies, request({ stream: true, client })).meter;
    const context = newContext();
    const refused = await refusal(harness, { stream: true, context });
    expect([refused.status, refused.headers['retry-after'], context.rateLimitExceeded]).toEqual([429, '1', 'streams']);
    // The refused call's reservation was cancelled: no usage event, its tokens given back.
    expect(context.usageOutcome?.settled).toBe(true);
    expect(harness.usage.events).toHaveLength(0);
    client.close();
    await expect(admit(harness.dependencies, request({ stream: true })).meter).resolves.toBeDefined();
  });

  it("keeps a passed-through format's attempts to the upstreams that speak it", async () => {
    const { dependencies } = admissionHarness();
    const small = { completionTokens: 10 };
    const messages = admit(dependencies, request({ ...small, model: 'chat-claude', upstream: 'messages' }));
    expect(messages.attempts.map((attempt) => attempt.model.id)).toEqual(['chat-claude']);
    const responses = admit(dependencies, request({ ...small, model: 'chat-oai', upstream: 'responses' }));
    expect(responses.attempts.map((attempt) => attempt.model.id)).toEqual(['chat-oai']);
    const chat = admit(dependencies, request({ ...small, model: 'chat-oai' }));
    expect(chat.attempts.map((attempt) => attempt.model.id)).toEqual(['chat-oai', 'chat-claude', 'chat-plain']);
    await Promise.all([messages.meter, responses.meter, chat.meter]);
  });

  it('reserves no reply for embeddings (a bound of 0)', async () => {
    const { dependencies } = admissionHarness();
    const context = newContext();
    await admit(dependencies, request({ context, model: 'embed', kind: 'embeddings', upstream: 'embeddings', completionTokens: 0 })).meter;
    expect(context.responseHeaders?.['x-ratelimit-remaining-tokens']).toBe('9960');
  });
});

describe('passesThrough and defaultCompletionReserve', () => {
  it("passes through where the model's own upstream speaks the format", () => {
    const { dependencies, config } = admissionHarness();
    const model = (id: string) => {
      const found = config.models.find((entry) => entry.id === id);
      if (!found) throw new Error(id);
      return found;
    };
    expect(passesThrough(dependencies, model('chat-claude'), 'messages')).toBe(true);
    expect(passesThrough(dependencies, model('chat-plain'), 'messages')).toBe(false);
    expect(passesThrough(dependencies, model('chat-oai'), 'responses')).toBe(true);
    expect(passesThrough(dependencies, model('chat-claude'), 'responses')).toBe(false);
  });

  it("is the model's max_output_tokens, at most 4096", () => {
    const { config } = admissionHarness();
    const [plain, claude] = config.models;
    if (!plain || !claude) throw new Error('catalogue');
    expect(defaultCompletionReserve(plain)).toBe(1000);
    expect(defaultCompletionReserve(claude)).toBe(4096);
    expect(defaultCompletionReserve({ ...claude, maxOutputTokens: 100_000 })).toBe(4096);
  });
});
