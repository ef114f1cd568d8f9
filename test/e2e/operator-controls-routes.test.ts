import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messageBody, MOCK_MODEL, startMockAnthropicUpstream, type MockAnthropicUpstream } from '../helpers/mock-anthropic-upstream';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import { textResponse } from '../helpers/mock-openai-responses';
import { modelEntry, startE2e, upstreamSection, type E2e } from './helpers';

/**
 * docs/operator-controls.md on the Messages and Responses routes, both paths of each: a model
 * outside the key's allow-list is 403 `model_not_allowed`, a request that could never fit the
 * key's tokens per minute is 400 `request_too_large` naming the route's own field, and
 * neither reaches an upstream.
 */
const UPSTREAM_MODEL = 'gpt-5-mini-2026-01-01';

function configYaml(chat: MockOpenAiUpstream, native: MockOpenAiUpstream, claude: MockAnthropicUpstream): string {
  return `${upstreamSection()}
providers:
  chat: { type: openai, base_url: ${chat.baseUrl}, api_key_env: E2E_CHAT_KEY }
  native: { type: openai, base_url: ${native.baseUrl}, api_key_env: E2E_NATIVE_KEY, responses_api: true }
  claude: { type: anthropic, base_url: ${claude.baseUrl}, api_key_env: E2E_ANTHROPIC_KEY }
models:
${modelEntry('chat-model', 'chat', UPSTREAM_MODEL, 'chat', 128_000, 'input_per_million: 1, output_per_million: 2', 'max_output_tokens: 16384')}
${modelEntry('native-model', 'native', UPSTREAM_MODEL, 'chat', 128_000, 'input_per_million: 1, output_per_million: 2', 'max_output_tokens: 16384')}
${modelEntry('claude-haiku', 'claude', MOCK_MODEL, 'chat', 200_000, 'input_per_million: 0.8, output_per_million: 4', 'max_output_tokens: 8192')}
`;
}

const chatCompletion = {
  id: 'chatcmpl-upstream-1',
  object: 'chat.completion',
  created: 1_767_225_600,
  model: UPSTREAM_MODEL,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 },
};

describe('e2e: operator controls on /v1/messages and /v1/responses', () => {
  let chat: MockOpenAiUpstream;
  let native: MockOpenAiUpstream;
  let claude: MockAnthropicUpstream;
  let e2e: E2e;
  let accountId = '';

  beforeAll(async () => {
    [chat, native, claude] = await Promise.all([startMockOpenAiUpstream(), startMockOpenAiUpstream(), startMockAnthropicUpstream()]);
    e2e = await startE2e({
      configYaml: configYaml(chat, native, claude),
      env: {
        E2E_CHAT_KEY: 'sk-chat-upstream',
        E2E_NATIVE_KEY: 'sk-native-upstream',
        E2E_ANTHROPIC_KEY: 'sk-ant-api03-E2eControlsKey-0123456789abcdef',
      },
    });
    accountId = await e2e.gateway.createAccount('Controls on every route');
  });
  beforeEach(() => {
    for (const upstream of [chat, native, claude]) upstream.requests.length = 0;
  });
  afterAll(async () => {
    await e2e?.close();
    await Promise.all([chat?.close(), native?.close(), claude?.close()]);
  });

  async function createKey(body: Record<string, unknown>): Promise<string> {
    return (await e2e.gateway.createKeyWith(accountId, { name: 'controlled', ...body })).key;
  }
  async function post(key: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${e2e.gateway.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const upstreamCalls = () => chat.requests.length + native.requests.length + claude.requests.length;
  const anthropicError = (type: string) => ({ type: 'error', error: { type, message: expect.any(String) } });
  const openAiError = (type: string, code: string, param: string) => ({ error: { type, code, param, message: expect.any(String) } });
  const message = (model: string, maxTokens = 16) => ({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: 'Hello' }] });
  const response = (model: string, extra: Record<string, unknown> = {}) => ({ model, input: 'Hello', ...extra });

  it('a model outside the allow-list: 403 on every path, nothing sent upstream', async () => {
    const onlyChat = await createKey({ models: ['chat-model'] });
    // Messages passed through (anthropic-type model), and its token count.
    expect(await post(onlyChat, '/v1/messages', message('claude-haiku'))).toEqual({
      status: 403,
      body: anthropicError('permission_error'),
    });
    expect(
      await post(onlyChat, '/v1/messages/count_tokens', { model: 'claude-haiku', messages: [{ role: 'user', content: 'Hello' }] }),
    ).toEqual({
      status: 403,
      body: anthropicError('permission_error'),
    });
    // Responses passed through (responses_api: true).
    expect(await post(onlyChat, '/v1/responses', response('native-model'))).toEqual({
      status: 403,
      body: openAiError('permission_error', 'model_not_allowed', 'model'),
    });

    const onlyClaude = await createKey({ models: ['claude-*'] });
    // Messages and Responses translated to a chat call.
    expect(await post(onlyClaude, '/v1/messages', message('chat-model'))).toEqual({
      status: 403,
      body: anthropicError('permission_error'),
    });
    expect(await post(onlyClaude, '/v1/responses', response('chat-model'))).toEqual({
      status: 403,
      body: openAiError('permission_error', 'model_not_allowed', 'model'),
    });
    expect(upstreamCalls()).toBe(0);

    // The allowed models still answer.
    claude.reply({ type: 'json', body: messageBody([{ type: 'text', text: 'Hi.' }], 'end_turn') });
    expect((await post(onlyClaude, '/v1/messages', message('claude-haiku'))).status).toBe(200);
    chat.reply({ type: 'json', body: chatCompletion });
    expect((await post(onlyChat, '/v1/responses', response('chat-model'))).status).toBe(200);
  });

  it('a request larger than the key’s tokens per minute: 400 naming the route’s field, nothing sent upstream', async () => {
    const small = await createKey({ tpm: 100 });
    const tooLarge = await post(small, '/v1/messages', message('claude-haiku', 5000));
    expect(tooLarge).toEqual({ status: 400, body: anthropicError('invalid_request_error') });
    expect(JSON.stringify(tooLarge.body)).toContain('max_tokens');
    expect((await post(small, '/v1/messages', message('chat-model', 5000))).status).toBe(400);
    expect(await post(small, '/v1/responses', response('native-model', { max_output_tokens: 5000 }))).toEqual({
      status: 400,
      body: openAiError('invalid_request_error', 'request_too_large', 'max_output_tokens'),
    });
    expect(await post(small, '/v1/responses', response('chat-model', { max_output_tokens: 5000 }))).toEqual({
      status: 400,
      body: openAiError('invalid_request_error', 'request_too_large', 'max_output_tokens'),
    });
    expect(await post(small, '/v1/responses', response('chat-model', { input: 'word '.repeat(2000), max_output_tokens: 16 }))).toEqual({
      status: 400,
      body: openAiError('invalid_request_error', 'request_too_large', 'input'),
    });
    expect(upstreamCalls()).toBe(0);

    // Counting tokens reserves none, so it is never too large.
    claude.reply({ type: 'json', body: { input_tokens: 12 } });
    expect(
      await post(small, '/v1/messages/count_tokens', { model: 'claude-haiku', messages: [{ role: 'user', content: 'Hello' }] }),
    ).toEqual({
      status: 200,
      body: { input_tokens: 12 },
    });
    // Within the limit, the request goes through.
    native.reply({ type: 'json', body: textResponse(UPSTREAM_MODEL, 'Native hi', { input: 5, output: 2 }) });
    expect((await post(small, '/v1/responses', response('native-model', { max_output_tokens: 16 }))).status).toBe(200);
  });

  it('a request that sets no bound on its reply reserves the model’s max_output_tokens capped at 4,096, on both Responses paths', async () => {
    // Both models declare 16,384: the reservation is 4,096 plus the prompt's few tokens.
    const below = await createKey({ tpm: 4090 });
    for (const model of ['native-model', 'chat-model']) {
      expect(await post(below, '/v1/responses', response(model))).toEqual({
        status: 400,
        body: openAiError('invalid_request_error', 'request_too_large', 'max_output_tokens'),
      });
    }
    expect(upstreamCalls()).toBe(0);
    native.reply({ type: 'json', body: textResponse(UPSTREAM_MODEL, 'Native hi', { input: 5, output: 2 }) });
    expect((await post(await createKey({ tpm: 4200 }), '/v1/responses', response('native-model'))).status).toBe(200);
    chat.reply({ type: 'json', body: chatCompletion });
    expect((await post(await createKey({ tpm: 4200 }), '/v1/responses', response('chat-model'))).status).toBe(200);
  });
});
