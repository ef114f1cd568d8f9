import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../server/config/load-config';
import { configErrorOf } from './config-error-of';

/** The settings of an `azure` provider (docs/azure.md). */
const file = (provider: string) => `providers:
  azure: ${provider}
models:
  - id: gpt-4o
    provider: azure
    upstream_model: gpt-4o-prod
    capabilities: [chat]
    context_window: 128000
    pricing: { input_per_million: 2.5, output_per_million: 10 }
`;

const problemOf = (provider: string): string => configErrorOf(file(provider)).message;

describe('azure providers', () => {
  it('take the endpoint, a key variable, an api_version and an auth', () => {
    const config = parseConfigText(
      file(
        '{ type: azure, base_url: https://res.openai.azure.com/, api_key_env: AZURE_KEY, options: { api_version: 2024-10-21, auth: entra_token } }',
      ),
      'gateway.yaml',
      { AZURE_KEY: 'token' },
    );
    expect(config.providers.azure).toMatchObject({
      type: 'azure',
      baseUrl: 'https://res.openai.azure.com',
      apiKey: 'token',
      options: { api_version: '2024-10-21', auth: 'entra_token' },
    });
  });

  it('refuse unknown options, auths and malformed versions at start, with the path', () => {
    expect(problemOf('{ type: azure, base_url: https://res.openai.azure.com, options: { deployment: x } }')).toMatch(
      /providers\.azure\.options/,
    );
    expect(problemOf('{ type: azure, base_url: https://res.openai.azure.com, options: { auth: oauth } }')).toMatch(
      /providers\.azure\.options\.auth/,
    );
    expect(problemOf('{ type: azure, base_url: https://res.openai.azure.com, options: { api_version: latest } }')).toMatch(
      /must be an Azure OpenAI API version/,
    );
  });

  it('serve the Responses API on the v1 API only', () => {
    const v1 = parseConfigText(file('{ type: azure, base_url: https://res.openai.azure.com, responses_api: true }'), 'gateway.yaml', {});
    expect(v1.providers.azure?.responsesApi).toBe(true);
    expect(
      problemOf('{ type: azure, base_url: https://res.openai.azure.com, responses_api: true, options: { api_version: 2024-10-21 } }'),
    ).toMatch(/an azure-type one on the v1 API/);
  });
});
