import type { Budget as BudgetView } from '../../contract';
import type { Actor } from '../audit/audit-log';
import { toBudget, toBudgetView } from '../budgets/budget-view';
import type { ApiKeyRow, KeySetting, KeySettingsSetBy } from '../db/types';
import { operatorOnly, type GatewayError } from '../errors/gateway-error';
import { modelListWithin } from './model-access';

/** The settings a key is created or changed with; undefined = not given, null = none. */
export interface KeySettings {
  rpm?: number | null;
  tpm?: number | null;
  models?: string[] | null;
  expiresAt?: Date | null;
  budget?: BudgetView | null;
}

const SETTINGS: readonly KeySetting[] = ['rpm', 'tpm', 'models', 'expiresAt', 'budget'];

/** The admin API's name of each setting, the `param` of a refusal. */
const PARAM: Record<KeySetting, string> = { rpm: 'rpm', tpm: 'tpm', models: 'models', expiresAt: 'expires_at', budget: 'budget' };

/**
 * docs/operator-controls.md, "Who set a key's settings": a setting given a value is the
 * actor's, one cleared (null) is nobody's, one not given keeps its setter. An owner's
 * tightening of the operator's setting stays the operator's: the owner may tighten it further,
 * only the operator loosens it again.
 */
export function setByAfter(current: KeySettingsSetBy, settings: KeySettings, actor: Actor): KeySettingsSetBy {
  const next = { ...current };
  for (const setting of SETTINGS) {
    const value = settings[setting];
    if (value === undefined) continue;
    if (value === null) next[setting] = null;
    else if (!(actor.kind === 'owner' && current[setting] === 'operator')) next[setting] = actor.kind;
  }
  return next;
}

/**
 * docs/operator-controls.md: an account owner may tighten what the operator set on a key, not
 * loosen or remove it (403 `operator_only`, naming the setting). Tighter is a lower rpm, tpm
 * or budget amount (the budget's period unchanged), a list that allows no model the
 * operator's does not, an earlier expiry. The operator changes anything.
 */
export function checkOwnerTightens(current: ApiKeyRow, settings: KeySettings, actor: Actor): void {
  if (actor.kind !== 'owner') return;
  for (const setting of SETTINGS) {
    if (settings[setting] === undefined || current.setBy[setting] !== 'operator') continue;
    const refusal = loosening(current, settings, setting);
    if (refusal) throw refusal;
  }
}

/** The refusal when `settings[setting]` loosens the key's current value, else null. */
function loosening(current: ApiKeyRow, settings: KeySettings, setting: KeySetting): GatewayError | null {
  const refuse = (value: string, tighter: string) =>
    operatorOnly(
      `${PARAM[setting]} ${value} was set by the operator: you may ${tighter}, not loosen or remove it; ask the operator to.`,
      PARAM[setting],
    );
  switch (setting) {
    case 'rpm':
    case 'tpm': {
      const [value, ceiling] = [settings[setting], current[setting]];
      if (ceiling === null) return null;
      return value === null || value === undefined || value > ceiling ? refuse(String(ceiling), 'lower it') : null;
    }
    case 'models': {
      const [list, ceiling] = [settings.models, current.models];
      if (ceiling === null) return null;
      return list === null || list === undefined || !modelListWithin(ceiling, list)
        ? refuse(`(${ceiling.join(', ')})`, 'narrow it to models it allows')
        : null;
    }
    case 'expiresAt': {
      const [time, ceiling] = [settings.expiresAt, current.expiresAt];
      if (ceiling === null) return null;
      return time === null || time === undefined || time.getTime() > ceiling.getTime()
        ? refuse(ceiling.toISOString(), 'bring it earlier')
        : null;
    }
    case 'budget': {
      const [budget, ceiling] = [settings.budget, current.budget];
      if (ceiling === null) return null;
      const tighter =
        budget !== null &&
        budget !== undefined &&
        budget.period === ceiling.period &&
        toBudget(budget, 0).amountFemtoUsd <= ceiling.amountFemtoUsd;
      const period = ceiling.period === 'total' ? 'in total' : `per ${ceiling.period}`;
      return tighter ? null : refuse(`of ${toBudgetView(ceiling)?.amount_usd} USD ${period}`, 'lower its amount for the same period');
    }
  }
}
