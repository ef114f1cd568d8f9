/**
 * Exact prices. Spend is summed in integer nano-dollars (docs/usage-report.md: "never accumulated
 * floats"), so a price per million tokens is read from its decimal text, never through a
 * float multiplication: 0.0375 is 37_500_000 nano-dollars, not 37_499_999.99….
 */

/** Nano-dollars per dollar: a price may have at most this many (9) decimal places. */
export const NANO_PER_UNIT = 1_000_000_000n;
const NANO_DIGITS = 9;

/** YAML 1.2 core-schema decimal floats and ints, e.g. `0.0375`, `.5`, `3`, `1e-3`. */
const DECIMAL_PATTERN = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/** YAML 1.2 core-schema hexadecimal and octal ints. */
const RADIX_INT_PATTERN = /^(?:0x[0-9a-fA-F]+|0o[0-7]+)$/;

export type NanoParseResult = { ok: true; nano: bigint } | { ok: false; message: string };

/**
 * Converts the source text of a non-negative number to nano-units, exactly.
 * Trailing zeros beyond the ninth decimal are harmless (`0.1000000000` is exact);
 * any other digit there is refused, since it cannot be represented.
 */
export function parseDecimalToNano(text: string): NanoParseResult {
  const trimmed = text.trim();
  if (RADIX_INT_PATTERN.test(trimmed)) {
    return { ok: true, nano: BigInt(trimmed) * NANO_PER_UNIT };
  }
  const match = DECIMAL_PATTERN.exec(trimmed);
  const integerPart = match?.[2] ?? '';
  const fractionPart = match?.[3] ?? '';
  if (!match || integerPart.length + fractionPart.length === 0) {
    return { ok: false, message: `"${trimmed}" is not a decimal number` };
  }
  if (match[1] === '-' && /[1-9]/.test(integerPart + fractionPart)) {
    return { ok: false, message: 'must not be negative' };
  }
  const exponent = Number.parseInt(match[4] ?? '0', 10);
  // value = digits × 10^(exponent − fraction length); in nano-units add 9 to that power.
  const digits = (integerPart + fractionPart).replace(/^0+(?=\d)/, '');
  const power = exponent - fractionPart.length + NANO_DIGITS;
  if (power >= 0) {
    return { ok: true, nano: BigInt(digits) * 10n ** BigInt(power) };
  }
  const cut = digits.length + power;
  const dropped = cut > 0 ? digits.slice(cut) : digits;
  if (/[1-9]/.test(dropped)) {
    return { ok: false, message: `must have at most ${NANO_DIGITS} decimal places (prices are kept in nano-dollars)` };
  }
  return { ok: true, nano: cut > 0 ? BigInt(digits.slice(0, cut)) : 0n };
}

/**
 * The same check on an already-parsed number, through its shortest round-trip text.
 * Exact for every price a person writes (up to 15 significant digits); the loader
 * still re-reads the YAML source text, which is the authority.
 */
export function numberToNano(value: number): NanoParseResult {
  if (!Number.isFinite(value)) {
    return { ok: false, message: 'must be a finite number' };
  }
  return parseDecimalToNano(String(value));
}
