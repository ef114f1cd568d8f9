import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../server/config/load-config';
import { configErrorOf } from './config-error-of';
import { createProviderRegistry } from '../../server/providers/registry';
import type { HttpClient } from '../../server/providers/types';

/** The settings of a bedrock-type provider (docs/bedrock.md, "Configuration"). */
const file = (provider: string) => `providers:
  aws: ${provider}
models:
  - id: claude
    provider: aws
    upstream_model: us.anthropic.claude-sonnet-4-5-20250929-v1:0
    capabilities: [chat]
    context_window: 200000
    pricing: { input_per_million: 3, output_per_million: 15 }
`;

const problemsOf = (text: string): string => configErrorOf(text).message;

describe('the bedrock provider type', () => {
  it('needs a region and no base_url (the region gives the endpoint)', () => {
    const config = parseConfigText(file('{ type: bedrock, options: { region: eu-central-1, profile: gateway } }'), 'gateway.yaml', {});
    expect(config.providers.aws).toMatchObject({
      type: 'bedrock',
      baseUrl: '',
      apiKey: '',
      options: { region: 'eu-central-1', profile: 'gateway' },
    });
  });

  it('reads a Bedrock API key from the variable api_key_env names', () => {
    const config = parseConfigText(
      file('{ type: bedrock, api_key_env: AWS_BEARER_TOKEN_BEDROCK, options: { region: us-east-1 } }'),
      'gateway.yaml',
      { AWS_BEARER_TOKEN_BEDROCK: 'ABSK-test' },
    );
    expect(config.providers.aws?.apiKey).toBe('ABSK-test');
  });

  it('refuses a missing or malformed region and unknown options at start, with their path', () => {
    expect(problemsOf(file('{ type: bedrock }'))).toMatch(/providers\.aws\.options\.region/);
    expect(problemsOf(file('{ type: bedrock, options: { region: Virginia } }'))).toMatch(/must be an AWS region such as us-east-1/);
    expect(problemsOf(file('{ type: bedrock, options: { region: us-east-1, regoin: us-west-2 } }'))).toMatch(/regoin/);
  });

  it('builds its adapter from the registry', () => {
    const config = parseConfigText(file('{ type: bedrock, options: { region: us-west-2 } }'), 'gateway.yaml', {});
    const http: HttpClient = { request: () => Promise.reject(new Error('no network in this test')) };
    const provider = config.providers.aws;
    if (!provider) throw new Error('the provider is missing');
    const registry = createProviderRegistry({ providers: [{ ...provider, name: 'aws' }], http, now: () => 0, generateId: () => 'id' });
    expect(registry.get('aws').type).toBe('bedrock');
    expect(
      registry
        .get('aws')
        .messages?.serves?.({ id: 'claude', upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', defaultMaxTokens: 1 }),
    ).toBe(true);
    expect(registry.get('aws').messages?.serves?.({ id: 'nova', upstreamModel: 'amazon.nova-pro-v1:0', defaultMaxTokens: 1 })).toBe(false);
  });
});
