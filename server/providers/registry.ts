import type { ProviderType } from '../config/schema';
import { PROVIDER_TYPES } from './provider-types';
import type { HttpClient, ProviderAdapter, ProviderFactory } from './types';

/** One configured provider (`providers.<name>` in the config file), with its key already read. */
export interface ProviderSettings {
  name: string;
  type: ProviderType;
  baseUrl: string;
  /** Empty when the key is not configured. */
  apiKey: string;
  options?: Record<string, unknown>;
}

export interface ProviderRegistryDependencies {
  providers: readonly ProviderSettings[];
  http: HttpClient;
  now: () => number;
  generateId: () => string;
  /** Replaces factories by type; tests use it to put a scripted adapter behind a real route. */
  factories?: Partial<Record<ProviderType, ProviderFactory>>;
}

export interface ProviderRegistry {
  /** The adapter of a configured provider; throws for a name the config does not declare. */
  get(name: string): ProviderAdapter;
  has(name: string): boolean;
}

/** Builds one adapter per provider name, once, at start; adapters keep no per-request state. */
export function createProviderRegistry(dependencies: ProviderRegistryDependencies): ProviderRegistry {
  const factories: Partial<Record<ProviderType, ProviderFactory>> = {
    ...Object.fromEntries(Object.entries(PROVIDER_TYPES).map(([type, entry]) => [type, entry.create])),
    ...dependencies.factories,
  };
  const adapters = new Map<string, ProviderAdapter>();
  for (const provider of dependencies.providers) {
    const factory = factories[provider.type];
    if (!factory) throw new Error(`Provider "${provider.name}" has the unknown type "${String(provider.type)}".`);
    if (adapters.has(provider.name)) throw new Error(`Provider "${provider.name}" is declared twice.`);
    adapters.set(
      provider.name,
      factory({
        name: provider.name,
        baseUrl: provider.baseUrl,
        apiKey: provider.apiKey,
        http: dependencies.http,
        now: dependencies.now,
        generateId: dependencies.generateId,
        options: provider.options ?? {},
      }),
    );
  }
  return {
    get(name) {
      const adapter = adapters.get(name);
      if (!adapter) throw new Error(`No provider named "${name}" is configured.`);
      return adapter;
    },
    has: (name) => adapters.has(name),
  };
}
