import { describe, expect, it } from 'vitest';
import { slowChatConfig, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { useTestGateway } from '../helpers/use-test-gateway';
import { parsePrometheusText, sampleValue, type Sample } from '../helpers/prometheus-text';

/**
 * GET /metrics (README, "Operations"): Prometheus text from a registry per gateway instance,
 * with bounded labels (route patterns, catalogue models), and the `x-gateway-overhead-ms`
 * header (the gateway's own time, the upstream's excluded).
 */
const SLOW_UPSTREAM_MS = 300;
const CONFIG = slowChatConfig(
  `{ latency_ms: ${SLOW_UPSTREAM_MS}, chunk_delay_ms: 50, chunks: 6 }`,
  'limits: { default_rpm: 100000, default_tpm: 100000000 }\n',
);

async function scrape(gw: TestGateway, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await gw.http.get('/metrics').set(headers);
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; charset=utf-8; version=0\.0\.4/);
  return parsePrometheusText(response.text);
}

const hello = (model = 'mock-chat', content = 'hello') => ({ model, messages: [{ role: 'user', content }] });

describe('GET /metrics', () => {
  const t = useTestGateway(() => ({ configYaml: CONFIG }));
  const chat = (body: object, authKey = t.key) =>
    t.gateway.http.post('/v1/chat/completions').set('authorization', `Bearer ${authKey}`).send(body);

  it('counts requests by route pattern, never by raw path', async () => {
    const other = await t.gateway.createKey(t.accountId);
    await t.gateway.http.get(`/v1/admin/keys/${t.keyId}`).set(t.gateway.admin()).expect(200);
    await t.gateway.http.get(`/v1/admin/keys/${other.id}`).set(t.gateway.admin()).expect(200);
    await t.gateway.http.get('/v1/admin/keys/key_does_not_exist').set(t.gateway.admin()).expect(404);
    await t.gateway.http.get('/some/random/path-12345').expect(404);
    const response = await t.gateway.http.get('/metrics');
    const samples = parsePrometheusText(response.text);
    expect(sampleValue(samples, 'gateway_http_requests_total', { route: '/v1/admin/keys/:keyId', method: 'GET', status: '200' })).toBe(2);
    expect(sampleValue(samples, 'gateway_http_requests_total', { route: '/v1/admin/keys/:keyId', status: '404' })).toBe(1);
    expect(sampleValue(samples, 'gateway_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    for (const raw of [t.keyId, other.id, 'key_does_not_exist', 'path-12345']) expect(response.text).not.toContain(raw);
    expect(samples.find((sample) => sample.name === 'gateway_http_request_duration_seconds_bucket')).toBeDefined();
  });

  it('labels model calls with the catalogue model and provider; a client-chosen model name never becomes a label', async () => {
    const before = await scrape(t.gateway);
    const answered = await chat(hello());
    expect(answered.status).toBe(200);
    expect((await chat(hello('no-such-model-xyz'))).status).toBe(404);
    const after = await scrape(t.gateway);
    const requests = (samples: Sample[]) =>
      sampleValue(samples, 'gateway_http_requests_total', {
        route: '/v1/chat/completions',
        status: '200',
        model: 'mock-chat',
        provider: 'mock',
      });
    expect(requests(after) - requests(before)).toBe(1);
    expect(
      sampleValue(after, 'gateway_http_requests_total', { route: '/v1/chat/completions', status: '404', model: '' }),
    ).toBeGreaterThanOrEqual(1);
    expect(after.some((sample) => Object.values(sample.labels).includes('no-such-model-xyz'))).toBe(false);
    // Tokens: exactly what the reply reported.
    const tokens = (samples: Sample[], type: string) => sampleValue(samples, 'gateway_tokens_total', { model: 'mock-chat', type });
    expect(tokens(after, 'prompt') - tokens(before, 'prompt')).toBe(answered.body.usage.prompt_tokens);
    expect(tokens(after, 'completion') - tokens(before, 'completion')).toBe(answered.body.usage.completion_tokens);
    const upstream = (samples: Sample[]) =>
      sampleValue(samples, 'gateway_upstream_duration_seconds_count', {
        provider: 'mock',
        model: 'mock-chat',
        outcome: 'ok',
        stream: 'false',
      });
    expect(upstream(after) - upstream(before)).toBe(1);
  });

  it('counts upstream failures by outcome, each retry included', async () => {
    const before = await scrape(t.gateway);
    const response = await chat(hello('mock-chat', 'mock:error:timeout'));
    expect(response.status).toBe(504);
    const after = await scrape(t.gateway);
    const timeouts = (samples: Sample[]) =>
      sampleValue(samples, 'gateway_upstream_duration_seconds_count', { model: 'mock-chat', outcome: 'timeout' });
    // max_retries: 1 in the test config: the call and its retry.
    expect(timeouts(after) - timeouts(before)).toBe(2);
    expect(
      sampleValue(after, 'gateway_http_requests_total', { route: '/v1/chat/completions', status: '504', model: 'mock-chat' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('counts rate-limit rejections by limit', async () => {
    const limited = await t.gateway.createKey(t.accountId, { rpm: 1 });
    expect((await chat(hello(), limited.key)).status).toBe(200);
    expect((await chat(hello(), limited.key)).status).toBe(429);
    const samples = await scrape(t.gateway);
    expect(
      sampleValue(samples, 'gateway_rate_limit_rejections_total', { route: '/v1/chat/completions', limit: 'requests' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('reports the usage buffer and open streams', async () => {
    const stream = t.gateway.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${t.key}`)
      .send({ ...hello('slow-chat'), stream: true });
    const pending = stream.then((response) => response);
    await new Promise((resolve) => setTimeout(resolve, SLOW_UPSTREAM_MS + 60));
    const during = await scrape(t.gateway);
    expect(sampleValue(during, 'gateway_streams_in_flight')).toBe(1);
    expect((await pending).status).toBe(200);
    const after = await scrape(t.gateway);
    expect(sampleValue(after, 'gateway_streams_in_flight')).toBe(0);
    expect(after.some((sample) => sample.name === 'gateway_usage_buffered_events')).toBe(true);
    expect(after.some((sample) => sample.name === 'gateway_usage_dropped_events_total')).toBe(true);
    for (const name of ['gateway_usage_oldest_buffered_seconds', 'gateway_usage_writes_total', 'gateway_usage_write_seconds_total']) {
      expect(after.some((sample) => sample.name === name)).toBe(true);
    }
  });

  it('never shows a key in its output', async () => {
    const response = await t.gateway.http.get('/metrics');
    expect(response.text).not.toContain(t.key);
    expect(response.text).not.toMatch(/sk-[0-9A-Za-z]{8}/);
  });
});

describe('x-gateway-overhead-ms', () => {
  const t = useTestGateway(() => ({ configYaml: CONFIG }));

  const overheadOf = (headers: Record<string, string>): number => {
    expect(headers['x-gateway-overhead-ms']).toMatch(/^\d+\.\d{2}$/);
    return Number(headers['x-gateway-overhead-ms']);
  };

  it('excludes the time spent waiting for the upstream (non-streamed)', async () => {
    await t.gateway.http.post('/v1/chat/completions').set('authorization', `Bearer ${t.key}`).send(hello('slow-chat')); // warm-up
    const startedAt = performance.now();
    const response = await t.gateway.http.post('/v1/chat/completions').set('authorization', `Bearer ${t.key}`).send(hello('slow-chat'));
    const totalMs = performance.now() - startedAt;
    expect(response.status).toBe(200);
    expect(totalMs).toBeGreaterThanOrEqual(SLOW_UPSTREAM_MS);
    expect(overheadOf(response.headers)).toBeLessThan(SLOW_UPSTREAM_MS / 3);
  });

  it('for a stream: time to the first byte minus the upstream time to its headers', async () => {
    const response = await t.gateway.http
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${t.key}`)
      .send({ ...hello('slow-chat'), stream: true });
    expect(response.status).toBe(200);
    expect(overheadOf(response.headers)).toBeLessThan(SLOW_UPSTREAM_MS / 3);
  });

  it('is on every response, errors included', async () => {
    overheadOf((await t.gateway.http.get('/v1/models')).headers);
    overheadOf((await t.gateway.http.get('/nowhere')).headers);
    overheadOf((await t.gateway.http.post('/v1/chat/completions').send(hello())).headers);
  });
});

describe('metrics token and per-instance registries', () => {
  it('GATEWAY_METRICS_TOKEN makes /metrics need that bearer token', async () => {
    const gw = await startTestGateway({ configYaml: CONFIG, env: { GATEWAY_METRICS_TOKEN: 'metrics-secret-123' } });
    try {
      const missing = await gw.http.get('/metrics');
      expect(missing.status).toBe(401);
      expect(missing.body.error).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' });
      const wrong = await gw.http.get('/metrics').set('authorization', 'Bearer metrics-secret-124');
      expect(wrong.status).toBe(401);
      expect(wrong.text).not.toContain('metrics-secret');
      await scrape(gw, { authorization: 'Bearer metrics-secret-123' });
    } finally {
      await gw.close();
    }
  });

  it('two gateways in one process count separately', async () => {
    const first = await startTestGateway({ configYaml: CONFIG });
    const second = await startTestGateway({ configYaml: CONFIG });
    try {
      for (let index = 0; index < 3; index++) await first.http.get('/v1/models').expect(200);
      const count = async (gw: TestGateway) => sampleValue(await scrape(gw), 'gateway_http_requests_total', { route: '/v1/models' });
      expect(await count(first)).toBe(3);
      expect(await count(second)).toBe(0);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
