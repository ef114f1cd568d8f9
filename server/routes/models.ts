import { initServer } from '@ts-rest/express';
import { contract, type ModelEntry } from '../../contract';
import type { ModelConfig } from '../config/load-config';
import type { Rates } from '../config/price';

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
  const entry: Omit<ModelEntry['pricing'], 'long_context'> = { input_per_million: rates.inputPerMillion, output_per_million: rates.outputPerMillion };
  if (rates.cacheReadPerMillion !== undefined) entry.cache_read_per_million = rates.cacheReadPerMillion;
  if (rates.cacheWritePerMillion !== undefined) entry.cache_write_per_million = rates.cacheWritePerMillion;
  if (rates.cacheWrite1hPerMillion !== undefined) entry.cache_write_1h_per_million = rates.cacheWrite1hPerMillion;
  return entry;
}

/** GET /v1/models (docs/configuration.md, the catalogue): the configured catalogue, no authentication. */
export function modelsRouter(models: ModelConfig[]) {
  // The catalogue is fixed for the life of the process: build the body once.
  const body = { object: 'list' as const, data: models.map(toModelEntry) };
  return s.router(contract.models, {
    list: async () => ({ status: 200, body }),
  });
}
