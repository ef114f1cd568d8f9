import { afterAll, beforeAll, expect, it } from 'vitest';
import { ModelListSchema } from '../../contract';
import { loadConfig } from '../../server/config/load-config';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

it('GET /v1/models needs no key and lists every configured model with the fields docs/configuration.md lists', async () => {
  const response = await gw.http.get('/v1/models');
  expect(response.status).toBe(200);
  expect(ModelListSchema.strict().parse(response.body)).toBeTruthy();
  expect(response.body.data.map((model: { id: string }) => model.id)).toEqual(['mock-chat', 'mock-text', 'mock-embed']);
  expect(response.body.data[0]).toEqual({
    id: 'mock-chat',
    object: 'model',
    owned_by: 'mock',
    capabilities: ['chat', 'code', 'function_calling', 'json_mode', 'vision'],
    context_window: 32000,
    pricing: { input_per_million: 1.5, output_per_million: 2.25 },
  });
  expect(response.body.data[2]).toMatchObject({ id: 'mock-embed', owned_by: 'mock', dimensions: [256, 1536] });
});

it('an invalid key on /v1/models is ignored (no authentication there)', async () => {
  const response = await gw.http.get('/v1/models').set('authorization', 'Bearer sk-nonsense');
  expect(response.status).toBe(200);
});

it('the bundled catalogue covers OpenAI, Anthropic, Gemini, DeepSeek, Mistral, Qwen and the mock', () => {
  const config = loadConfig({ env: {} });
  const types = new Set(Object.values(config.providers).map((provider) => provider.type));
  expect([...types].sort()).toEqual(['anthropic', 'gemini', 'mock', 'openai']);
  const names = Object.keys(config.providers);
  for (const name of ['openai', 'anthropic', 'gemini', 'deepseek', 'mistral', 'qwen', 'mock']) expect(names).toContain(name);
  expect(config.models.some((model) => model.provider === 'mock' && model.kind === 'chat')).toBe(true);
  expect(config.models.some((model) => model.provider === 'mock' && model.kind === 'embeddings')).toBe(true);
});
