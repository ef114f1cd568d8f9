import { describe, expect, it } from 'vitest';
import { checkModelAllowed, checkModelList, modelListAllows } from '../../server/keys/model-access';

/** docs/operator-controls.md, model allow-lists. */
describe('model allow-lists', () => {
  it('null allows everything; ids match exactly; prefix* by prefix; * alone everything', () => {
    expect(modelListAllows(null, 'anything')).toBe(true);
    expect(modelListAllows(['gpt-4o'], 'gpt-4o')).toBe(true);
    expect(modelListAllows(['gpt-4o'], 'gpt-4o-mini')).toBe(false);
    expect(modelListAllows(['gpt-4o*'], 'gpt-4o-mini')).toBe(true);
    expect(modelListAllows(['claude-*'], 'gpt-4o')).toBe(false);
    expect(modelListAllows(['*'], 'gpt-4o')).toBe(true);
  });

  it('a model must pass both the key’s and the account’s list: 403 model_not_allowed, param model', () => {
    expect(() => checkModelAllowed({ models: ['gpt-*'], accountModels: null }, 'gpt-4o')).not.toThrow();
    for (const access of [
      { models: ['gpt-*'], accountModels: ['claude-*'] },
      { models: ['claude-*'], accountModels: null },
    ]) {
      expect(() => checkModelAllowed(access, 'gpt-4o')).toThrow(
        expect.objectContaining({ status: 403, type: 'permission_error', code: 'model_not_allowed', param: 'model' }),
      );
    }
  });

  it('a list being set: catalogue ids only, and within the account’s list', () => {
    const catalogue = new Set(['gpt-4o', 'gpt-4o-mini', 'claude-3-5-haiku']);
    expect(checkModelList(['gpt-4o', 'claude-*'], { catalogue, param: 'models' })).toBeNull();
    expect(checkModelList(['gpt-5'], { catalogue, param: 'models' })).toMatchObject({
      status: 400,
      code: 'invalid_value',
      param: 'models',
    });
    expect(checkModelList(['gpt-4o-mini', 'gpt-4o*'], { catalogue, within: ['gpt-*'], param: 'models' })).toBeNull();
    expect(checkModelList(['gpt-*'], { catalogue, within: ['gpt-4o*'], param: 'models' })).toMatchObject({ status: 400 });
    expect(checkModelList(['claude-3-5-haiku'], { catalogue, within: ['gpt-4o'], param: 'models' })).toMatchObject({ status: 400 });
    expect(checkModelList(['gpt-4o'], { catalogue, within: ['*'], param: 'models' })).toBeNull();
  });
});
