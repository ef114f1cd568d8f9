import { invalidRequest, permissionError, type GatewayError } from '../errors/gateway-error';

/*
 * Model allow-lists (docs/operator-controls.md): catalogue ids or `prefix*` patterns, on a key
 * and on its account; null = every model. A request's model must pass both.
 */

/** Whether `modelId` is on the list: an exact id, or a pattern `prefix*` it starts with. */
export function modelListAllows(list: readonly string[] | null, modelId: string): boolean {
  if (list === null) return true;
  for (const entry of list) {
    if (entry.endsWith('*') ? modelId.startsWith(entry.slice(0, -1)) : entry === modelId) return true;
  }
  return false;
}

/** What a model route needs of the caller's key. */
export interface ModelAccess {
  models: readonly string[] | null;
  accountModels: readonly string[] | null;
}

/**
 * The one check every model route makes after resolving the requested model: 403
 * `model_not_allowed` (param `model`) outside the key's or the account's allow-list. The
 * configured fallbacks of an allowed model are the operator's choice and are not checked.
 */
export function checkModelAllowed(key: ModelAccess, modelId: string): void {
  if (modelListAllows(key.models, modelId) && modelListAllows(key.accountModels, modelId)) return;
  throw permissionError(
    'model_not_allowed',
    `This API key may not use the model "${modelId}"; GET /v1/models with this key lists the models it may use.`,
    'model',
  );
}

/** Whether every model `inner` allows is allowed by `outer` (an entry at a time, patterns by prefix). */
function entryCovered(outer: readonly string[], entry: string): boolean {
  if (!entry.endsWith('*')) return modelListAllows(outer, entry);
  const prefix = entry.slice(0, -1);
  return outer.some((candidate) => candidate.endsWith('*') && prefix.startsWith(candidate.slice(0, -1)));
}

/** Whether `inner` allows no model that `outer` does not (docs/operator-controls.md, narrowing a list). */
export function modelListWithin(outer: readonly string[], inner: readonly string[]): boolean {
  return inner.every((entry) => entryCovered(outer, entry));
}

/**
 * Checks an allow-list being set: every exact id must be in the catalogue (a typo would
 * otherwise lock the key out silently), and, for a key, every entry must lie within the
 * account's list. 400 `invalid_value` naming the field.
 */
export function checkModelList(
  list: readonly string[],
  options: { catalogue?: ReadonlySet<string>; within?: readonly string[] | null; param: string },
): GatewayError | null {
  for (const entry of list) {
    if (!entry.endsWith('*') && options.catalogue && !options.catalogue.has(entry)) {
      return invalidRequest(
        'invalid_value',
        `"${entry}" is not a model of the catalogue (GET /v1/models lists them); use "prefix*" for a pattern.`,
        options.param,
      );
    }
    if (options.within && !entryCovered(options.within, entry)) {
      return invalidRequest(
        'invalid_value',
        `"${entry}" is outside the models the operator allows this account (${options.within.join(', ')}).`,
        options.param,
      );
    }
  }
  return null;
}
