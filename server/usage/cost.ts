import type { ModelPricing, Rates } from '../config/price';
import type { TokenUsage } from '../providers/types';

/**
 * The one price of a request (docs/pricing.md): uncached prompt tokens x input + cache reads x
 * cache_read + 5-minute cache writes x cache_write + 1-hour cache writes x cache_write_1h +
 * completion tokens (reasoning included) x output, every rate of the long-context set when the
 * whole prompt is over its threshold. With prices held as exact nano-dollars per million tokens,
 * each product tokens x nano-per-million is femto-dollars (1e-15 USD), exactly.
 */
export function requestCostFemtoUsd(pricing: ModelPricing, usage: TokenUsage): bigint {
  const parts = billedUsage(usage);
  const longContext = pricing.longContext;
  const rates: Rates = longContext !== null && parts.promptTokens > longContext.thresholdTokens ? longContext : pricing;
  const uncached = parts.promptTokens - parts.cachedTokens - parts.cacheWriteTokens - parts.cacheWrite1hTokens;
  // A request's cost is computed on every call; the parts a request does not have (most have
  // no cache reads or writes) are skipped rather than multiplied as bigint zeros.
  let femto = 0n;
  if (uncached > 0) femto += BigInt(uncached) * rates.inputNanoPerMillion;
  if (parts.cachedTokens > 0) femto += BigInt(parts.cachedTokens) * rates.cacheReadNanoPerMillion;
  if (parts.cacheWriteTokens > 0) femto += BigInt(parts.cacheWriteTokens) * rates.cacheWriteNanoPerMillion;
  if (parts.cacheWrite1hTokens > 0) femto += BigInt(parts.cacheWrite1hTokens) * rates.cacheWrite1hNanoPerMillion;
  if (parts.completionTokens > 0) femto += BigInt(parts.completionTokens) * rates.outputNanoPerMillion;
  return femto;
}

/**
 * The usage as it is billed and stored: every count a non-negative integer (a provider's
 * garbage counts as 0), and the parts taken in order (cached, 5-minute, 1-hour writes) from
 * the prompt total and reasoning from the completion total, so that a provider reporting more
 * cached tokens than prompt tokens is never billed for a token twice.
 */
export function billedUsage(usage: TokenUsage): Required<TokenUsage> {
  const promptTokens = wholeTokens(usage.promptTokens);
  const completionTokens = wholeTokens(usage.completionTokens);
  const cachedTokens = Math.min(wholeTokens(usage.cachedTokens), promptTokens);
  const cacheWriteTokens = Math.min(wholeTokens(usage.cacheWriteTokens), promptTokens - cachedTokens);
  const cacheWrite1hTokens = Math.min(wholeTokens(usage.cacheWrite1hTokens), promptTokens - cachedTokens - cacheWriteTokens);
  const reasoningTokens = Math.min(wholeTokens(usage.reasoningTokens), completionTokens);
  return { promptTokens, completionTokens, cachedTokens, cacheWriteTokens, cacheWrite1hTokens, reasoningTokens };
}

/** A count as the cost needs it: a non-negative integer (a provider's garbage counts as 0). */
function wholeTokens(value: number | undefined): number {
  return value !== undefined && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** Femto-dollars per dollar. */
const FEMTO_DIGITS = 15;

/**
 * Femto-dollars as exact decimal dollars without trailing zeros ("0.000123", "0"): the text of
 * the `x-gateway-cost-usd` header; `Number()` of it is the `cost_usd` of a stream's usage chunk.
 */
export function femtoToUsdText(femto: bigint): string {
  const digits = femto.toString().padStart(FEMTO_DIGITS + 1, '0');
  const whole = digits.slice(0, -FEMTO_DIGITS);
  const fraction = digits.slice(-FEMTO_DIGITS).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}
/** Half a nano-dollar in femto-dollars. */
const HALF_NANO_FEMTO = 500_000;

/**
 * Rounds an amount held as whole nano-dollars plus a femto-dollar remainder (0..999,999, as
 * the rollup stores it) to whole nano-dollars, half up (the report shows at most 9 decimals).
 * Stays a JS number while the result is a safe integer.
 */
export function roundedNanoUsd(nano: number | bigint, femtoRemainder: number): number | bigint {
  const up = femtoRemainder >= HALF_NANO_FEMTO ? 1 : 0;
  if (typeof nano === 'number') {
    if (!Number.isSafeInteger(nano)) throw new RangeError(`not an exact nano-dollar amount: ${nano}`);
    const rounded = nano + up;
    return Number.isSafeInteger(rounded) ? rounded : BigInt(nano) + BigInt(up);
  }
  return nano + BigInt(up);
}

/**
 * An exact sum of nano-dollar amounts: plain number additions while the sum is a safe integer
 * (an addition that leaves that range cannot round back into it), bigint from then on.
 */
export class NanoSum {
  private small = 0;
  private big: bigint | null = null;

  add(nano: number | bigint): void {
    if (this.big === null && typeof nano === 'number') {
      const sum = this.small + nano;
      if (Number.isSafeInteger(sum)) {
        this.small = sum;
        return;
      }
    }
    this.big = (this.big ?? BigInt(this.small)) + BigInt(nano);
  }

  get value(): number | bigint {
    return this.big ?? this.small;
  }
}

/** Nano-dollars as a JSON number with at most 9 decimals, from exact integer arithmetic. */
export function nanoToUsd(nano: number | bigint): number {
  if (typeof nano === 'number') {
    if (!Number.isSafeInteger(nano)) throw new RangeError(`not an exact nano-dollar amount: ${nano}`);
    // Both operands are exact and IEEE division rounds correctly, so this is the double
    // nearest to the decimal nano / 10^9: the one that decimal's text parses to, as below.
    return nano / 1e9;
  }
  const negative = nano < 0n;
  const magnitude = negative ? -nano : nano;
  const whole = magnitude / 1_000_000_000n;
  const fraction = (magnitude % 1_000_000_000n).toString().padStart(9, '0');
  return Number(`${negative ? '-' : ''}${whole}.${fraction}`);
}
