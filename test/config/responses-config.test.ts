import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../server/config/load-config';

/** The provider settings of /v1/responses (docs/openai-responses.md). */
const file = (provider: string) => `providers:
  upstream: ${provider}
models:
  - id: chat-a
    provider: upstream
    capabilities: [chat]
    context_window: 8000
    pricing: { input_per_million: 0, output_per_million: 0 }
`;

describe('responses_api and responses_hosted_tools', () => {
  it('default to false and drop', () => {
    const config = parseConfigText(file('{ type: openai, base_url: https://api.openai.com/v1 }'), 'gateway.yaml', {});
    expect(config.providers.upstream).toMatchObject({ responsesApi: false, responsesHostedTools: 'drop' });
  });

  it('are read when set', () => {
    const config = parseConfigText(
      file('{ type: openai, base_url: https://api.openai.com/v1, responses_api: true, responses_hosted_tools: reject }'),
      'gateway.yaml',
      {},
    );
    expect(config.providers.upstream).toMatchObject({ responsesApi: true, responsesHostedTools: 'reject' });
  });

  it('responses_api is for openai-type providers only; other values are errors at start', () => {
    expect(() =>
      parseConfigText(file('{ type: anthropic, base_url: https://api.anthropic.com, responses_api: true }'), 'gateway.yaml', {}),
    ).toThrow(ConfigError);
    expect(() =>
      parseConfigText(file('{ type: openai, base_url: https://x.test/v1, responses_hosted_tools: keep }'), 'gateway.yaml', {}),
    ).toThrow(/responses_hosted_tools/);
  });
});
