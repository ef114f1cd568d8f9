import type { z } from 'zod';
import type { ProviderType } from '../config/schema';
import { createAnthropicProvider } from './anthropic';
import { createAzureProvider } from './azure';
import { AzureOptionsSchema } from './azure/azure-options';
import { createBedrockProvider } from './bedrock';
import { BedrockOptionsSchema } from './bedrock/bedrock-options';
import { createGeminiProvider } from './gemini';
import { createMockProvider } from './mock';
import { MockOptionsSchema } from './mock/mock-options';
import { createOpenAiProvider } from './openai';
import type { ProviderFactory } from './types';
import { createVertexProvider } from './vertex';
import { VertexOptionsSchema } from './vertex/vertex-options';

/** What the gateway knows of one provider type (docs/configuration.md, "Providers"). */
export interface ProviderTypeEntry {
  /** Builds the adapter of one configured provider of this type. */
  create: ProviderFactory;
  /** The adapter's `options`, checked at start so that a misspelt one is reported with its line; free-form without one. */
  options?: z.ZodTypeAny;
  /** Whether `base_url` must be given: Bedrock's and Vertex AI's follow from their region, the mock needs none. */
  needsBaseUrl: boolean;
}

/** Keyed by every config `type`, so a new type in the config schema does not compile until it has its entry here. */
export const PROVIDER_TYPES: Readonly<Record<ProviderType, ProviderTypeEntry>> = {
  openai: { create: createOpenAiProvider, needsBaseUrl: true },
  anthropic: { create: createAnthropicProvider, needsBaseUrl: true },
  gemini: { create: createGeminiProvider, needsBaseUrl: true },
  mock: { create: createMockProvider, options: MockOptionsSchema, needsBaseUrl: false },
  azure: { create: createAzureProvider, options: AzureOptionsSchema, needsBaseUrl: true },
  bedrock: { create: (options) => createBedrockProvider(options), options: BedrockOptionsSchema, needsBaseUrl: false },
  vertex: { create: createVertexProvider, options: VertexOptionsSchema, needsBaseUrl: false },
};
