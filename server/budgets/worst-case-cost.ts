import type { ModelPricing } from '../config/price';

/**
 * docs/operator-controls.md, spend budgets: the most a request may cost, in femto-USD: the
 * prompt estimate at the highest input-side rate it could be billed (input, cache read, cache
 * writes; the long-context set when the estimate is over its threshold) plus its output limit
 * (or the default reserve) at the output rate.
 */
export function worstCaseCostFemtoUsd(pricing: ModelPricing, promptTokens: number, completionTokens: number): bigint {
  const prompt = whole(promptTokens);
  const completion = whole(completionTokens);
  const rates = pricing.longContext !== null && prompt > pricing.longContext.thresholdTokens ? pricing.longContext : pricing;
  const inputRate = [rates.cacheReadNanoPerMillion, rates.cacheWriteNanoPerMillion, rates.cacheWrite1hNanoPerMillion].reduce(
    (highest, rate) => (rate > highest ? rate : highest),
    rates.inputNanoPerMillion,
  );
  return BigInt(prompt) * inputRate + BigInt(completion) * rates.outputNanoPerMillion;
}

/** A token count as a non-negative whole number; an absurd one (1e308) stays a finite bigint. */
function whole(tokens: number): number {
  if (!Number.isFinite(tokens) || tokens <= 0) return 0;
  return Math.min(Math.ceil(tokens), Number.MAX_SAFE_INTEGER);
}
