import { expect, it } from 'vitest';
import { startTestGateway } from '../helpers/test-gateway';

/** A chat model of `provider` with a 1,000-token window, priced $1 per million tokens in and out. */
const chatModel = (id: string, provider: string, fallbacks: string[] = []) =>
  `  - { id: ${id}, provider: ${provider}, capabilities: [chat], context_window: 1000, pricing: { input_per_million: 1, output_per_million: 1 }${fallbacks.length > 0 ? `, fallbacks: [${fallbacks.join(', ')}]` : ''} }`;

const config = `
upstream: { connect_timeout_ms: 500, first_byte_timeout_ms: 500, idle_timeout_ms: 500, max_retries: 0, retry_base_delay_ms: 1 }
providers:
  keyless: { type: openai, base_url: "http://127.0.0.1:9/v1", api_key_env: GW_TEST_UNSET_KEY }
  mock: { type: mock }
models:
${chatModel('needs-key', 'keyless')}
${chatModel('needs-key-with-fallback', 'keyless', ['mock-chat'])}
${chatModel('mock-chat', 'mock')}
`;

it('a provider whose key variable is unset answers 502 naming the variable, and falls back', async () => {
  const gw = await startTestGateway({ configYaml: config });
  try {
    const accountId = await gw.createAccount();
    const { key } = await gw.createKey(accountId);
    const call = (model: string) =>
      gw.http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model, messages: [{ role: 'user', content: 'hi' }] });
    const refused = await call('needs-key');
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatchObject({ type: 'upstream_error', code: 'upstream_unavailable' });
    expect(refused.body.error.message).toContain('GW_TEST_UNSET_KEY');
    const fallback = await call('needs-key-with-fallback');
    expect(fallback.status).toBe(200);
    expect(fallback.body.model).toBe('mock-chat');
  } finally {
    await gw.close();
  }
});

const chainConfig = `
upstream: { connect_timeout_ms: 500, first_byte_timeout_ms: 500, idle_timeout_ms: 500, max_retries: 0, retry_base_delay_ms: 1 }
providers:
  first: { type: openai, base_url: "http://127.0.0.1:9/v1", api_key_env: GW_TEST_UNSET_FIRST }
  second: { type: anthropic, base_url: "http://127.0.0.1:9/v1", api_key_env: GW_TEST_UNSET_SECOND }
  third: { type: openai, base_url: "http://127.0.0.1:9/v1", api_key_env: GW_TEST_UNSET_FIRST }
models:
${chatModel('keyless-chain', 'first', ['keyless-second', 'keyless-third'])}
${chatModel('keyless-second', 'second')}
${chatModel('keyless-third', 'third')}
`;

it('when a model and all its fallbacks lack their keys, the 502 names every missing variable in order, each once', async () => {
  const gw = await startTestGateway({ configYaml: chainConfig });
  try {
    const { key } = await gw.createKey(await gw.createAccount());
    for (const stream of [false, true]) {
      const response = await gw.http
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .send({ model: 'keyless-chain', messages: [{ role: 'user', content: 'hi' }], stream });
      expect(response.status).toBe(502);
      expect(response.body.error).toEqual({
        type: 'upstream_error',
        code: 'upstream_unavailable',
        param: null,
        message:
          'Neither the model nor any of its fallbacks has a provider API key configured: ' +
          'set GW_TEST_UNSET_FIRST (provider "first"), GW_TEST_UNSET_SECOND (provider "second") on the gateway.',
      });
    }
  } finally {
    await gw.close();
  }
});
