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

/** The price keys of a `pricing` block (and of its `long_context`), read exactly from the YAML text. */
export const PRICE_KEYS = [
  'input_per_million',
  'output_per_million',
  'cache_read_per_million',
  'cache_write_per_million',
  'cache_write_1h_per_million',
] as const;
export type PriceKey = (typeof PRICE_KEYS)[number];

/** One set of rates (docs/pricing.md): as written, for display, and exact, for accounting. */
export interface Rates {
  /** USD per million tokens as written, for `GET /v1/models`; a cache price not given is absent. */
  inputPerMillion: number;
  outputPerMillion: number;
  cacheReadPerMillion?: number;
  cacheWritePerMillion?: number;
  cacheWrite1hPerMillion?: number;
  /** Exact nano-dollars per million tokens (docs/pricing.md); a cache price not given is the input price. */
  inputNanoPerMillion: bigint;
  outputNanoPerMillion: bigint;
  cacheReadNanoPerMillion: bigint;
  cacheWriteNanoPerMillion: bigint;
  cacheWrite1hNanoPerMillion: bigint;
}

export interface ModelPricing extends Rates {
  /** Rates of every token of a request whose whole prompt is over `thresholdTokens`; null = none. */
  longContext: (Rates & { thresholdTokens: number }) | null;
}

/** A `pricing` block or its `long_context`, as the schema parsed it. */
type WrittenRates = { input_per_million: number; output_per_million: number } & Partial<Record<PriceKey, number>>;

/**
 * The runtime pricing of a model from its parsed `pricing` block; `exact(key, longContext)`
 * gives the nano-dollar value read from the source text. Cache prices not given fall back to
 * the input price of the same block.
 */
export function buildPricing(
  written: WrittenRates & { long_context?: (WrittenRates & { threshold_tokens: number }) | undefined },
  exact: (key: PriceKey, longContext: boolean) => bigint,
): ModelPricing {
  const longContext = written.long_context;
  return {
    ...buildRates(written, (key) => exact(key, false)),
    longContext: longContext
      ? { thresholdTokens: longContext.threshold_tokens, ...buildRates(longContext, (key) => exact(key, true)) }
      : null,
  };
}

function buildRates(written: WrittenRates, exact: (key: PriceKey) => bigint): Rates {
  const input = exact('input_per_million');
  const cache = (key: PriceKey): bigint => (written[key] === undefined ? input : exact(key));
  return {
    inputPerMillion: written.input_per_million,
    outputPerMillion: written.output_per_million,
    ...(written.cache_read_per_million === undefined ? {} : { cacheReadPerMillion: written.cache_read_per_million }),
    ...(written.cache_write_per_million === undefined ? {} : { cacheWritePerMillion: written.cache_write_per_million }),
    ...(written.cache_write_1h_per_million === undefined ? {} : { cacheWrite1hPerMillion: written.cache_write_1h_per_million }),
    inputNanoPerMillion: input,
    outputNanoPerMillion: exact('output_per_million'),
    cacheReadNanoPerMillion: cache('cache_read_per_million'),
    cacheWriteNanoPerMillion: cache('cache_write_per_million'),
    cacheWrite1hNanoPerMillion: cache('cache_write_1h_per_million'),
  };
}
