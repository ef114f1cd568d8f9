import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../server/config/load-config';
import { problemsOf } from './config-error-of';

/** The operations settings: server timeouts, `limits.max_streams_per_key`, GATEWAY_METRICS_TOKEN. */
const FILE = 'gateway.yaml';
const MODELS = `providers:
  mock: { type: mock }
models:
  - id: chat
    provider: mock
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 1, output_per_million: 2 }
`;

describe('operations settings', () => {
  it('defaults: 100 streams per key, 30 s headers, 60 s request, 65 s keep-alive, /metrics open', () => {
    const config = parseConfigText(MODELS, FILE, {});
    expect(config.limits.maxStreamsPerKey).toBe(100);
    expect(config.server).toMatchObject({ headersTimeoutMs: 30_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 65_000 });
    expect(config.metricsToken).toBeNull();
  });

  it('reads them from the file and the environment', () => {
    const text = `server: { headers_timeout_ms: 5000, request_timeout_ms: 10000, keep_alive_timeout_ms: 30000, idle_gc: false }\nlimits: { max_streams_per_key: 7 }\n${MODELS}`;
    const config = parseConfigText(text, FILE, { GATEWAY_METRICS_TOKEN: 'scrape-me' });
    expect(config.limits.maxStreamsPerKey).toBe(7);
    expect(config.server).toMatchObject({ headersTimeoutMs: 5000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 30_000, idleGc: false });
    expect(config.metricsToken).toBe('scrape-me');
  });

  it('refuses a stream limit that is not a positive integer, at its line', () => {
    for (const value of ['0', '-1', '1.5', 'many']) {
      const problems = problemsOf(`limits:\n  max_streams_per_key: ${value}\n${MODELS}`);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ path: 'limits.max_streams_per_key', line: 2 });
    }
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    const problems = problemsOf(`server:\n  headers_timeout_ms: 9000\n  request_timeout_ms: 5000\n${MODELS}`);
    expect(problems).toEqual([
      expect.objectContaining({ path: 'server.headers_timeout_ms', line: 2, message: 'must not be greater than request_timeout_ms' }),
    ]);
  });
});
