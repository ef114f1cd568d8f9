import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfigText } from '../../server/config/load-config';

const MINIMAL = `providers:
  mock: { type: mock }
  openai: { type: openai, base_url: https://api.openai.com/v1/, api_key_env: OPENAI_API_KEY }
models:
  - id: mock-chat
    provider: mock
    capabilities: [chat]
    context_window: 1000
    pricing: { input_per_million: 1, output_per_million: 2 }
  - id: gpt
    provider: openai
    upstream_model: gpt-upstream
    capabilities: [chat, function_calling]
    context_window: 2000
    max_output_tokens: 500
    pricing: { input_per_million: 1, output_per_million: 2 }
    fallbacks: [mock-chat]
`;

function writeTemporary(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'gateway-config-')), 'gateway.yaml');
  writeFileSync(path, text);
  return path;
}

describe('the bundled default configuration', () => {
  const config = loadConfig({ env: {} });

  it('loads without problems', () => {
    expect(config.source).toMatch(/config[/\\]default\.yaml$/);
    expect(config.models.length).toBeGreaterThan(10);
  });

  it('declares every provider of the catalogue with its key variable', () => {
    const keyVariables = Object.fromEntries(Object.values(config.providers).map((provider) => [provider.name, provider.apiKeyEnv]));
    expect(keyVariables).toEqual({
      openai: 'OPENAI_API_KEY',
      anthropic: 'ANTHROPIC_API_KEY',
      gemini: 'GEMINI_API_KEY',
      deepseek: 'DEEPSEEK_API_KEY',
      mistral: 'MISTRAL_API_KEY',
      qwen: 'DASHSCOPE_API_KEY',
      mock: null,
    });
    expect(config.providers.qwen?.baseUrl).toBe('https://dashscope-intl.aliyuncs.com/compatible-mode/v1');
  });

  it('has chat and embeddings models for every real provider', () => {
    for (const provider of ['openai', 'anthropic', 'gemini', 'deepseek', 'mistral', 'qwen']) {
      expect(config.models.some((model) => model.provider === provider && model.kind === 'chat')).toBe(true);
    }
    for (const provider of ['openai', 'gemini', 'mistral', 'qwen']) {
      expect(config.models.some((model) => model.provider === provider && model.kind === 'embeddings')).toBe(true);
    }
  });

  it('has the mock models the tests and benchmarks rely on', () => {
    const mockChat = config.models.find((model) => model.id === 'mock-chat');
    const mockEmbed = config.models.find((model) => model.id === 'mock-embed');
    expect(mockChat).toMatchObject({ provider: 'mock', kind: 'chat', fallbacks: [] });
    expect(mockChat?.capabilities).toEqual(expect.arrayContaining(['chat', 'code', 'function_calling', 'json_mode', 'vision']));
    expect(mockEmbed).toMatchObject({ provider: 'mock', kind: 'embeddings', dimensions: [256, 1536] });
  });

  it('gives every Anthropic model an output ceiling, used as the default max_tokens', () => {
    for (const model of config.models.filter((entry) => entry.provider === 'anthropic')) {
      expect(model.maxOutputTokens).toBeGreaterThan(0);
    }
  });
});

describe('normalized runtime configuration', () => {
  it('fills defaults and camel-cases the file', () => {
    const config = parseConfigText(MINIMAL, 'minimal.yaml', {});
    expect(config.server).toEqual({
      port: 8080,
      host: '0.0.0.0',
      bodyLimitBytes: 8 * 1024 * 1024,
      trustProxy: false,
      headersTimeoutMs: 30_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 65_000,
      idleGc: true,
    });
    expect(config.upstream).toEqual({
      connectTimeoutMs: 5000,
      cooldownBaseMs: 1000,
      cooldownMaxMs: 300000,
      firstByteTimeoutMs: 60000,
      idleTimeoutMs: 60000,
      keepAliveMs: 20000,
      maxRetries: 2,
      retryBaseDelayMs: 200,
    });
    expect(config.limits).toEqual({
      defaultRpm: 600,
      defaultTpm: 1_000_000,
      usageKeyRpm: 30,
      usageIpRpm: 120,
      adminAuthFailuresPerMinute: 10,
      redisFailure: 'open',
      maxStreamsPerKey: 100,
    });
    expect(config.usage).toEqual({
      retentionDays: 400,
      flushIntervalMs: 1000,
      flushBatchSize: 500,
      maxBufferedEvents: 1_000_000,
      durability: 'journal',
      journalDir: 'data/usage-journal',
      journalDirFixed: false,
      journalFsyncMs: 100,
      streamClaimIdleMs: 30_000,
      streamPrefix: 'mg:usage:',
    });
    expect(config.models[0]).toEqual({
      id: 'mock-chat',
      provider: 'mock',
      upstreamModel: 'mock-chat',
      ownedBy: 'mock',
      capabilities: ['chat'],
      kind: 'chat',
      contextWindow: 1000,
      pricing: {
        inputPerMillion: 1,
        outputPerMillion: 2,
        inputNanoPerMillion: 1_000_000_000n,
        outputNanoPerMillion: 2_000_000_000n,
        cacheReadNanoPerMillion: 1_000_000_000n,
        cacheWriteNanoPerMillion: 1_000_000_000n,
        cacheWrite1hNanoPerMillion: 1_000_000_000n,
        longContext: null,
      },
      fallbacks: [],
      // docs/routing.md: a model with `provider:` is one deployment named like the model.
      deployments: [
        { id: 'mock-chat', model: 'mock-chat', provider: 'mock', upstreamModel: 'mock-chat', weight: 1, priority: 0, rpm: null, tpm: null },
      ],
      routing: { strategy: 'weighted', affinity: 'session', affinityTtl: 3600 },
    });
    expect(config.models[1]).toMatchObject({ upstreamModel: 'gpt-upstream', maxOutputTokens: 500, fallbacks: ['mock-chat'] });
  });

  it("camel-cases the file's own keys only, never names or free-form options", () => {
    const text = `providers:
  local_mock: { type: mock, options: { latency_ms: 5 } }
models:
  - id: mock_chat_v1
    provider: local_mock
    capabilities: [chat]
    context_window: 1000
    pricing: { input_per_million: 1, output_per_million: 2 }
`;
    const config = parseConfigText(text, 'names.yaml', {});
    expect(Object.keys(config.providers)).toEqual(['local_mock']);
    expect(config.providers.local_mock).toMatchObject({ name: 'local_mock', options: { latency_ms: 5 } });
    expect(config.models[0]).toMatchObject({ id: 'mock_chat_v1', provider: 'local_mock', upstreamModel: 'mock_chat_v1' });
  });

  it('reads provider keys from the environment, empty when unset', () => {
    expect(parseConfigText(MINIMAL, 'minimal.yaml', { OPENAI_API_KEY: 'sk-test' }).providers.openai).toEqual({
      name: 'openai',
      type: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-test',
      apiKeyEnv: 'OPENAI_API_KEY',
      options: {},
      responsesApi: false,
      responsesHostedTools: 'drop',
    });
    expect(parseConfigText(MINIMAL, 'minimal.yaml', {}).providers.openai?.apiKey).toBe('');
  });

  it('applies the environment overrides', () => {
    const config = parseConfigText(MINIMAL, 'minimal.yaml', {
      PORT: '9090',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://gateway:secret@db:5432/gateway',
      REDIS_URL: 'redis://cache:6379',
      GATEWAY_ADMIN_TOKEN: 'admin-token',
      LOG_LEVEL: 'debug',
    });
    expect(config.server).toMatchObject({ port: 9090, host: '127.0.0.1' });
    expect(config).toMatchObject({
      databaseUrl: 'postgres://gateway:secret@db:5432/gateway',
      redisUrl: 'redis://cache:6379',
      adminToken: 'admin-token',
      logLevel: 'debug',
    });
  });

  it('uses the documented defaults when the overrides are absent or empty', () => {
    const config = parseConfigText(MINIMAL, 'minimal.yaml', { PORT: '', REDIS_URL: '' });
    expect(config).toMatchObject({ databaseUrl: 'file:./data/gateway.db', redisUrl: null, adminToken: null, logLevel: 'info' });
    expect(config.server.port).toBe(8080);
  });

  it('takes PORT=0 as any free port and refuses one past 65535', () => {
    expect(parseConfigText(MINIMAL, 'minimal.yaml', { PORT: '0' }).server.port).toBe(0);
    expect(() => parseConfigText(MINIMAL, 'minimal.yaml', { PORT: '65536' })).toThrow(/from 0 to 65535, got "65536"/);
  });

  it('refuses bad environment values, together with file problems', () => {
    const text = MINIMAL.replace('context_window: 1000', 'context_window: zero');
    let problems: ConfigError['problems'] = [];
    try {
      parseConfigText(text, 'minimal.yaml', { PORT: '80a', DATABASE_URL: 'mysql://x', REDIS_URL: 'http://x', LOG_LEVEL: 'loud' });
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems.map((problem) => `${problem.file}:${problem.path}`)).toEqual([
      'minimal.yaml:models[0].context_window',
      'environment:PORT',
      'environment:DATABASE_URL',
      'environment:REDIS_URL',
      'environment:LOG_LEVEL',
    ]);
  });
});

describe('choosing the file', () => {
  const other = MINIMAL.replace('id: mock-chat', 'id: from-file').replace('fallbacks: [mock-chat]', 'fallbacks: [from-file]');

  it('reads the path given first, then GATEWAY_CONFIG', () => {
    const path = writeTemporary(other);
    expect(loadConfig({ path, env: {} }).models[0]?.id).toBe('from-file');
    expect(loadConfig({ env: { GATEWAY_CONFIG: path } }).source).toBe(path);
    expect(loadConfig({ path, env: { GATEWAY_CONFIG: '/nonexistent.yaml' } }).source).toBe(path);
  });

  it('names the file in its problems', () => {
    const path = writeTemporary(other.replace('context_window: 1000', 'context_window: many'));
    expect(() => loadConfig({ path, env: {} })).toThrow(`${path}:8:21: models[0].context_window: expected number, got string`);
  });

  it('reports a file that cannot be read', () => {
    expect(() => loadConfig({ path: '/nonexistent/gateway.yaml', env: {} })).toThrow(
      /\/nonexistent\/gateway\.yaml: \(file\): cannot be read/,
    );
  });
});
