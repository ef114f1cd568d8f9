import type { ChatCompletionRequest } from '../../contract';
import type { DeploymentConfig } from '../config/deployments';
import type { Capability } from '../../contract';
import type { Config, ModelConfig } from '../config/load-config';
import { invalidRequest, notFound, type GatewayError } from '../errors/gateway-error';
import { missingKeyMessage, missingKeyProvider, type MissingKey } from '../providers/missing-key';
import type { ModelTarget, ProviderAdapter } from '../providers/types';

export interface Catalogue {
  byId: Map<string, ModelConfig>;
  /** attemptsFor's answers: the catalogue and adapters are fixed for the process's life. */
  attempts: Map<string, Attempt[]>;
}

export function createCatalogue(config: Config): Catalogue {
  return { byId: new Map(config.models.map((model) => [model.id, model])), attempts: new Map() };
}

/** 404 `model_not_found` (docs/errors.md) or a model of the wrong kind for the route. */
export function resolveModel(catalogue: Catalogue, id: string, kind: 'chat' | 'embeddings'): ModelConfig {
  const model = catalogue.byId.get(id);
  if (!model) throw notFound('model_not_found', `The model "${id}" does not exist; GET /v1/models lists the available ones.`, 'model');
  if (model.kind !== kind) {
    const what = kind === 'chat' ? 'a chat model' : 'an embeddings model';
    throw invalidRequest('unsupported_capability', `The model "${id}" is not ${what}.`, 'model');
  }
  return model;
}

/**
 * docs/chat-and-streaming.md: a request that needs a capability the model lacks is 400
 * `unsupported_capability`, naming the field that needs it.
 */
export function checkChatCapabilities(model: ModelConfig, request: ChatCompletionRequest): void {
  const missing = (capability: Capability, param: string, what: string): GatewayError =>
    invalidRequest('unsupported_capability', `The model "${model.id}" does not support ${what} (capability "${capability}").`, param);
  const has = (capability: Capability) => model.capabilities.includes(capability);

  if (request.tools && request.tools.length > 0 && !has('function_calling')) throw missing('function_calling', 'tools', 'tools');
  const format = request.response_format?.type;
  if ((format === 'json_object' || format === 'json_schema') && !has('json_mode'))
    throw missing('json_mode', 'response_format', 'JSON mode');
  if (!has('vision')) {
    request.messages.forEach((message, messageIndex) => {
      if (!Array.isArray(message.content)) return;
      message.content.forEach((part, partIndex) => {
        if (part.type === 'image_url') throw missing('vision', `messages[${messageIndex}].content[${partIndex}]`, 'image inputs');
      });
    });
  }
}

/**
 * `n` other than 1 only where the adapter returns several choices (docs/chat-and-streaming.md):
 * the attempts that can, in their order; a 400 when none of the model's deployments and
 * fallbacks can.
 */
export function attemptsServingN(model: ModelConfig, attempts: readonly Attempt[], n: number | null | undefined): readonly Attempt[] {
  if (n === undefined || n === null || n === 1) return attempts;
  const serving = attempts.filter((attempt) => attempt.adapter.supportsN === true);
  if (serving.length === 0) throw invalidRequest('invalid_value', `The model "${model.id}" can only return one choice (n = 1).`, 'n');
  return serving;
}

/** One deployment of a model of the call (docs/routing.md): what the retry loop calls. */
export interface Attempt {
  model: ModelConfig;
  deployment: DeploymentConfig;
  target: ModelTarget;
  adapter: ProviderAdapter;
  providerType: string;
}

/**
 * The model's deployments then those of its configured `fallbacks`, each model's in file order
 * (docs/configuration.md, docs/routing.md); the admission step orders each model's for a call.
 */
export function attemptsFor(
  catalogue: Catalogue,
  model: ModelConfig,
  config: Config,
  adapterFor: (providerName: string) => ProviderAdapter,
): Attempt[] {
  const known = catalogue.attempts.get(model.id);
  if (known) return known;
  const attempts = buildAttempts(catalogue, model, config, adapterFor);
  catalogue.attempts.set(model.id, attempts);
  return attempts;
}

function buildAttempts(
  catalogue: Catalogue,
  model: ModelConfig,
  config: Config,
  adapterFor: (providerName: string) => ProviderAdapter,
): Attempt[] {
  const models = [
    model,
    ...model.fallbacks.map((id) => catalogue.byId.get(id)).filter((entry): entry is ModelConfig => entry !== undefined),
  ];
  const deployments = models.flatMap((entry) => entry.deployments.map((deployment) => ({ model: entry, deployment })));
  const missingKeyOf = (deployment: DeploymentConfig): MissingKey | null => {
    const provider = config.providers[deployment.provider];
    return provider?.apiKeyEnv && provider.apiKey === '' ? { provider: provider.name, apiKeyEnv: provider.apiKeyEnv } : null;
  };
  const missing = deployments.map(({ deployment }) => missingKeyOf(deployment));
  // Every model of the chain lacks its key: whichever fails last names all of them.
  const everyKeyMissing = missing.every((entry) => entry !== null);
  const chainMessage = everyKeyMissing ? missingKeyMessage(missing.filter((entry): entry is MissingKey => entry !== null)) : null;
  return deployments.map(({ model: entry, deployment }, index) => {
    const target: ModelTarget = {
      id: entry.id,
      upstreamModel: deployment.upstreamModel,
      defaultMaxTokens: entry.maxOutputTokens ?? 4096,
    };
    if (entry.dimensions) target.dimensions = entry.dimensions;
    const providerType = config.providers[deployment.provider]?.type ?? 'unknown';
    const missingKey = missing[index];
    const adapter = missingKey
      ? missingKeyProvider(adapterFor(deployment.provider), chainMessage ?? missingKeyMessage([missingKey]))
      : adapterFor(deployment.provider);
    return { model: entry, deployment, target, adapter, providerType };
  });
}
