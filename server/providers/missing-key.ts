import { UpstreamError } from '../errors/gateway-error';
import type { ProviderAdapter } from './types';

/**
 * Stands in for a provider whose `api_key_env` names an unset variable: it fails at once
 * with a 502 that says what to set, instead of calling the provider without credentials
 * (and waiting for its refusal). Not retryable, so a configured fallback is tried next.
 */
export function missingKeyProvider(name: string, type: string, apiKeyEnv: string): ProviderAdapter {
  const fail = async (): Promise<never> => {
    throw new UpstreamError('unavailable', `The provider "${name}" has no API key configured: set ${apiKeyEnv} on the gateway.`, {
      retryable: false,
    });
  };
  return { type, chat: fail, chatStream: fail, embeddings: fail };
}
