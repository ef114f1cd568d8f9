import { initServer } from '@ts-rest/express';
import { contract, type ModelEntry } from '../../contract';
import type { ModelConfig } from '../config/load-config';

const s = initServer();

export function toModelEntry(model: ModelConfig): ModelEntry {
  const entry: ModelEntry = {
    id: model.id,
    object: 'model',
    owned_by: model.ownedBy,
    capabilities: model.capabilities,
    context_window: model.contextWindow,
    pricing: { input_per_million: model.pricing.inputPerMillion, output_per_million: model.pricing.outputPerMillion },
  };
  if (model.dimensions) entry.dimensions = model.dimensions;
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
