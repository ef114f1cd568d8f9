import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  azureCompletionReply,
  managedIdentityTokenReply,
  startMockManagedIdentityEndpoint,
  type MockManagedIdentityEndpoint,
} from '../../helpers/mock-azure-upstream';
import { chatRequest, chatTarget, useHarness } from './harness';

/**
 * `auth: entra_credential` with Azure's own DefaultAzureCredential, no credential injected: the
 * chain finds the managed identity of an App Service (its variables point at a local token
 * endpoint), and the token it returns is what reaches the resource. Its own file: the
 * variables are the process's.
 */
const TOKEN = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.managed-identity-token';
let identity: MockManagedIdentityEndpoint;
const saved = { endpoint: process.env.IDENTITY_ENDPOINT, header: process.env.IDENTITY_HEADER };

beforeAll(async () => {
  identity = await startMockManagedIdentityEndpoint('identity-header-secret');
  process.env.IDENTITY_ENDPOINT = identity.baseUrl;
  process.env.IDENTITY_HEADER = identity.secret;
});
afterAll(async () => {
  for (const [name, value] of [
    ['IDENTITY_ENDPOINT', saved.endpoint],
    ['IDENTITY_HEADER', saved.header],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await identity.close();
});

describe('azure adapter: DefaultAzureCredential', () => {
  const harness = useHarness({
    providerOptions: { auth: 'entra_credential' },
    upstream: { acceptedTokens: new Set([TOKEN]) },
    now: Date.now(),
  });

  it('obtains the token once from the managed identity and sends it as the bearer', async () => {
    identity.reply(managedIdentityTokenReply(TOKEN, Date.now() + 3_600_000));
    const reply = azureCompletionReply({ content: 'Hi.' }, { prompt: 3, completion: 1 });
    harness.upstream.reply(reply, reply, reply);
    for (let count = 0; count < 3; count++) {
      const result = await harness.adapter.chat(chatRequest(), chatTarget, harness.options());
      expect(result.completion.choices[0]?.message.content).toBe('Hi.');
    }
    expect(harness.upstream.requests.map((request) => request.headers.authorization)).toEqual(Array(3).fill(`Bearer ${TOKEN}`));
    expect(identity.requests).toHaveLength(1);
    const query = new URL(identity.requests[0]?.path ?? '', 'http://identity').searchParams;
    expect([query.get('resource'), query.get('api-version')]).toEqual(['https://cognitiveservices.azure.com', '2019-08-01']);
  });
});
