import type { TokenCredential } from '@azure/identity';
import { createOpenAiProvider } from '../openai';
import type { HttpClient, HttpRequest, ModelTarget, ProviderAdapter, ProviderFactoryOptions } from '../types';
import { azureStatusError } from './azure-error';
import { parseAzureOptions, type AzureOptions } from './azure-options';
import { createCachedTokenSource, type BearerTokenSource } from './azure-token';

export interface AzureProviderDependencies {
  /**
   * The Microsoft Entra credential of `auth: entra_credential`; by default Azure's
   * DefaultAzureCredential (environment, workload identity, managed identity, Azure CLI, …),
   * created on first use.
   */
  credential?: TokenCredential;
}

/**
 * The `azure` provider type: Azure OpenAI and Azure AI Foundry (docs/azure.md). Its wire format
 * is OpenAI's, so the adapter is the `openai` one on an HTTP client that speaks to Azure: the
 * resource's URLs, Azure's credentials and Azure's error answers (the content filter's 400).
 * `baseUrl` is the resource endpoint, e.g. https://my-resource.openai.azure.com.
 * - v1 API (no `api_version`): one OpenAI adapter on `<endpoint>/openai/v1`, `model` in the
 *   body naming the deployment; serves /responses too.
 * - Deployment-path API: one OpenAI adapter per deployment (the model's `upstream_model`), on
 *   `<endpoint>/openai/deployments/<deployment>`, every URL with `?api-version=`.
 *   https://learn.microsoft.com/azure/ai-foundry/openai/reference
 */
export function createAzureProvider(options: ProviderFactoryOptions, dependencies: AzureProviderDependencies = {}): ProviderAdapter {
  const settings = parseAzureOptions(options.name, options.options);
  const endpoint = options.baseUrl.replace(/\/+$/, '');
  // The secret scrubbed from messages; a credential's tokens never reach one.
  const secret = settings.auth === 'entra_credential' ? '' : options.apiKey;
  const http = azureHttpClient(options, settings, secret, dependencies);
  const openAiAt = (baseUrl: string): ProviderAdapter => createOpenAiProvider({ ...options, baseUrl, apiKey: secret, http });

  if (settings.api_version === undefined) return { ...openAiAt(`${endpoint}/openai/v1`), type: 'azure' };

  const deployments = new Map<string, ProviderAdapter>();
  const forTarget = (target: ModelTarget): ProviderAdapter => {
    let adapter = deployments.get(target.upstreamModel);
    if (!adapter) {
      adapter = openAiAt(`${endpoint}/openai/deployments/${encodeURIComponent(target.upstreamModel)}`);
      deployments.set(target.upstreamModel, adapter);
    }
    return adapter;
  };
  return {
    type: 'azure',
    supportsN: true,
    chat: (request, target, callOptions) => forTarget(target).chat(request, target, callOptions),
    chatStream: (request, target, callOptions) => forTarget(target).chatStream(request, target, callOptions),
    embeddings: (request, target, callOptions) => forTarget(target).embeddings(request, target, callOptions),
  };
}

/**
 * The pooled client with Azure's side of each call: the `api-version` query, the credential
 * in place of OpenAI's bearer key (`api-key`, or an Entra bearer token), and non-2xx replies
 * read the Azure way (azure-error.ts) before the OpenAI adapter sees them.
 */
function azureHttpClient(
  options: ProviderFactoryOptions,
  settings: AzureOptions,
  secret: string,
  dependencies: AzureProviderDependencies,
): HttpClient {
  const { name, http } = options;
  const query = settings.api_version === undefined ? '' : `?api-version=${encodeURIComponent(settings.api_version)}`;
  const tokens = settings.auth === 'entra_credential' ? credentialTokens(name, options.now, dependencies) : null;

  // A key (or a token from a variable) is the same on every request; none at all when unset.
  const fixedCredential: Record<string, string> =
    tokens || !secret ? {} : settings.auth === 'entra_token' ? { authorization: `Bearer ${secret}` } : { 'api-key': secret };

  return {
    async request(request: HttpRequest) {
      const headers = { ...request.headers };
      delete headers.authorization;
      Object.assign(headers, tokens ? { authorization: `Bearer ${await tokens.token()}` } : fixedCredential);
      const response = await http.request({ ...request, url: `${request.url}${query}`, headers });
      if (response.status >= 200 && response.status < 300) return response;
      throw await azureStatusError(response, name, secret, options.now());
    },
  };
}

/** The token source of `entra_credential`: the injected credential, else DefaultAzureCredential, loaded on first use. */
function credentialTokens(provider: string, now: () => number, dependencies: AzureProviderDependencies): BearerTokenSource {
  let defaultCredential: Promise<TokenCredential> | undefined;
  const credential: TokenCredential = dependencies.credential ?? {
    // @azure/identity is loaded only by gateways that use it (it is large); one credential per provider.
    getToken: async (scopes, getTokenOptions) => {
      defaultCredential ??= import('@azure/identity').then(({ DefaultAzureCredential }) => new DefaultAzureCredential());
      return (await defaultCredential).getToken(scopes, getTokenOptions);
    },
  };
  return createCachedTokenSource(credential, provider, now);
}
