import { z } from 'zod';
import { buildPricing, numberToNano } from './price';

const positiveInteger = z.number().int().positive();

/** USD per million tokens; at most 9 decimals because spend is summed in nano-dollars. */
const priceSchema = z
  .number()
  .nonnegative()
  .max(1_000_000)
  .superRefine((value, context) => {
    const parsed = numberToNano(value);
    if (!parsed.ok) {
      context.addIssue({ code: z.ZodIssueCode.custom, message: parsed.message });
    }
  });

/**
 * Exact nano-dollars of a price that passed `priceSchema`. A price of at most 1,000,000 with at
 * most 9 decimals has at most 15 significant digits, which a double keeps exactly, so this is
 * the value of the decimal text; the loader also checks that text itself (docs/pricing.md).
 */
function nanoOf(price: number): bigint {
  const parsed = numberToNano(price);
  return parsed.ok ? parsed.nano : 0n;
}

/** Prompt-cache prices (docs/pricing.md); one not given is the input price. */
const cachePriceShape = {
  cache_read_per_million: priceSchema.optional(),
  cache_write_per_million: priceSchema.optional(),
  cache_write_1h_per_million: priceSchema.optional(),
};

/** Rates of every token of a request whose whole prompt is over `threshold_tokens`. */
export const LongContextPricingSchema = z
  .object({
    threshold_tokens: positiveInteger,
    input_per_million: priceSchema,
    output_per_million: priceSchema,
    ...cachePriceShape,
  })
  .strict();

/**
 * A model's `pricing` block as written (docs/pricing.md), turned into its rates as written (for
 * `GET /v1/models`) and exact (for accounting); a cache price not given is the input price.
 */
export const PricingSchema = z
  .object({
    input_per_million: priceSchema,
    output_per_million: priceSchema,
    ...cachePriceShape,
    long_context: LongContextPricingSchema.optional(),
  })
  .strict()
  .transform((written) =>
    buildPricing(written, (key, longContext) => nanoOf((longContext ? written.long_context?.[key] : written[key]) ?? 0)),
  );
