// Shared by the POST /v1/responses end-to-end tests (docs/openai-responses.md): responses-path.test.ts,
// responses-pass-through.test.ts and responses-failures.test.ts.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startMockOpenAiUpstream, type MockOpenAiUpstream } from '../helpers/mock-openai-upstream';
import type { TestGatewayOptions } from '../helpers/test-gateway';
import { startE2e, upstreamSection, type E2e } from './helpers';

/** The model the upstreams are asked for in place of the gateway's model id. */
export const UPSTREAM_MODEL = 'gpt-5-mini-2026-01-01';

/** The upstream keys of `responsesPathConfig`, as the gateway's environment. */
export const RESPONSES_PATH_KEYS = { E2E_CHAT_KEY: 'sk-chat-upstream', E2E_NATIVE_KEY: 'sk-native-upstream' };

/**
 * `chat-model` translated to the chat upstream, `strict-model` the same with hosted tools
 * refused, `native-model` passed through to the upstream serving the Responses API.
 */
export function responsesPathConfig(chat: MockOpenAiUpstream, native: MockOpenAiUpstream): string {
  return `${upstreamSection()}
providers:
  chat: { type: openai, base_url: ${chat.baseUrl}, api_key_env: E2E_CHAT_KEY }
  strict-chat: { type: openai, base_url: ${chat.baseUrl}, api_key_env: E2E_CHAT_KEY, responses_hosted_tools: reject }
  native: { type: openai, base_url: ${native.baseUrl}, api_key_env: E2E_NATIVE_KEY, responses_api: true }
models:
  - id: chat-model
    provider: chat
    upstream_model: ${UPSTREAM_MODEL}
    capabilities: [chat, vision, function_calling, json_mode, reasoning]
    context_window: 128000
    pricing: { input_per_million: 1, output_per_million: 2 }
  - id: strict-model
    provider: strict-chat
    capabilities: [chat, function_calling]
    context_window: 128000
    pricing: { input_per_million: 1, output_per_million: 2 }
  - id: native-model
    provider: native
    upstream_model: ${UPSTREAM_MODEL}
    capabilities: [chat, function_calling]
    context_window: 128000
    pricing: { input_per_million: 1, output_per_million: 2 }
`;
}

export const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

/**
 * For the enclosing describe: a mock chat-completions upstream (`chat`), a mock upstream serving
 * the Responses API (`native`) and a gateway on them configured by `configYaml`, closed after it;
 * each test starts with no upstream requests recorded. Read the fields inside tests (they exist
 * from beforeAll on).
 */
export function useResponsesE2e(
  configYaml: (chat: MockOpenAiUpstream, native: MockOpenAiUpstream) => string,
  options: TestGatewayOptions = {},
) {
  const fixture = {
    chat: undefined as unknown as MockOpenAiUpstream,
    native: undefined as unknown as MockOpenAiUpstream,
    e2e: undefined as unknown as E2e,
  };
  beforeAll(async () => {
    fixture.chat = await startMockOpenAiUpstream();
    fixture.native = await startMockOpenAiUpstream();
    fixture.e2e = await startE2e({ ...options, configYaml: configYaml(fixture.chat, fixture.native) });
  });
  beforeEach(() => {
    fixture.chat.requests.length = 0;
    fixture.native.requests.length = 0;
  });
  afterAll(async () => {
    await fixture.e2e?.close();
    await fixture.chat?.close();
    await fixture.native?.close();
  });
  return fixture;
}
