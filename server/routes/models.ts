import { initServer } from '@ts-rest/express';
import { contract, type ModelEntry } from '../../contract';
import type { ModelConfig } from '../config/load-config';
import type { Rates } from '../config/price';
import type { KeyCache } from '../keys/key-cache';
import { modelListAllows } from '../keys/model-access';
import { authenticateApiKey, bearerToken } from '../middleware/authenticate';

const s = initServer();

export function toModelEntry(model: ModelConfig): ModelEntry {
  const entry: ModelEntry = {
    id: model.id,
    object: 'model',
    owned_by: model.ownedBy,
    capabilities: model.capabilities,
    context_window: model.contextWindow,
    pricing: toRates(model.pricing),
  };
  const longContext = model.pricing.longContext;
  if (longContext) entry.pricing.long_context = { threshold_tokens: longContext.thresholdTokens, ...toRates(longContext) };
  if (model.dimensions) entry.dimensions = model.dimensions;
  return entry;
}

function toRates(rates: Rates): Omit<ModelEntry['pricing'], 'long_context'> {
  const entry: Omit<ModelEntry['pricing'], 'long_context'> = {
    input_per_million: rates.inputPerMillion,
    output_per_million: rates.outputPerMillion,
  };
  if (rates.cacheReadPerMillion !== undefined) entry.cache_read_per_million = rates.cacheReadPerMillion;
  if (rates.cacheWritePerMillion !== undefined) entry.cache_write_per_million = rates.cacheWritePerMillion;
  if (rates.cacheWrite1hPerMillion !== undefined) entry.cache_write_1h_per_million = rates.cacheWrite1hPerMillion;
  return entry;
}

/**
 * GET /v1/models (docs/configuration.md, the catalogue): the configured catalogue, no
 * authentication. With an `sk-` key (docs/operator-controls.md), only the models that key may
 * use; the route needs no key, so a key that is not usable is ignored (the whole catalogue).
 */
export function modelsRouter(models: ModelConfig[], keys: KeyCache, now: () => number = Date.now) {
  // The catalogue is fixed for the life of the process: build the body once.
  const data = models.map(toModelEntry);
  const body = { object: 'list' as const, data };
  return s.router(contract.models, {
    list: async ({ headers }) => {
      // Only a usable sk- key narrows the list. The route needs no key, so any other
      // credential (none, a usage key, an unknown, revoked or expired key) sees the catalogue.
      if (headers.authorization === undefined || !/^Bearer[ \t]+sk-/i.test(headers.authorization)) return { status: 200, body };
      const key = await authenticateApiKey(keys, bearerToken(headers.authorization), now).then(
        (principal) => principal.key,
        () => null,
      );
      if (key === null) return { status: 200, body };
      if (key.models === null && key.accountModels === null) return { status: 200, body };
      return {
        status: 200,
        body: {
          object: 'list' as const,
          data: data.filter((entry) => modelListAllows(key.models, entry.id) && modelListAllows(key.accountModels, entry.id)),
        },
      };
    },
  });
}
