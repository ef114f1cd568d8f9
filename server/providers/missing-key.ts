import { UpstreamError } from '../errors/gateway-error';
import type { ProviderAdapter } from './types';

/** A provider whose `api_key_env` names an unset variable. */
export interface MissingKey {
  provider: string;
  apiKeyEnv: string;
}

/**
 * What to set. When a model and every fallback lack their keys, all the variables are named,
 * in the order the models are tried (each once), so one reading of the 502 is enough.
 */
export function missingKeyMessage(missing: readonly MissingKey[]): string {
  const [only] = missing;
  if (missing.length === 1 && only)
    return `The provider "${only.provider}" has no API key configured: set ${only.apiKeyEnv} on the gateway.`;
  const seen = new Set<string>();
  const named: string[] = [];
  for (const entry of missing) {
    if (seen.has(entry.apiKeyEnv)) continue;
    seen.add(entry.apiKeyEnv);
    named.push(`${entry.apiKeyEnv} (provider "${entry.provider}")`);
  }
  return `Neither the model nor any of its fallbacks has a provider API key configured: set ${named.join(', ')} on the gateway.`;
}

/**
 * Stands in for a provider whose `api_key_env` names an unset variable: it fails at once
 * with a 502 that says what to set, instead of calling the provider without credentials
 * (and waiting for its refusal). Not retryable, so a configured fallback is tried next. It has
 * the type and capabilities of the provider's `adapter`, so that a request is checked as it
 * would be with the key.
 */
export function missingKeyProvider(adapter: ProviderAdapter, message: string): ProviderAdapter {
  const fail = async (): Promise<never> => {
    throw new UpstreamError('unavailable', message, { retryable: false });
  };
  return { type: adapter.type, supportsN: adapter.supportsN === true, chat: fail, chatStream: fail, embeddings: fail };
}
