/**
 * docs/usage-report.md: spend = prompt_tokens x input_per_million / 1e6 + completion_tokens x
 * output_per_million / 1e6. With prices held as exact nano-dollars per million tokens, the
 * product tokens x nano-per-million is the cost in femto-dollars (1e-15 USD), exactly.
 */
export function costFemtoUsd(
  pricing: { inputNanoPerMillion: bigint; outputNanoPerMillion: bigint },
  promptTokens: number,
  completionTokens: number,
): bigint {
  return BigInt(promptTokens) * pricing.inputNanoPerMillion + BigInt(completionTokens) * pricing.outputNanoPerMillion;
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
