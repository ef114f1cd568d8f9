import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPricing } from '../../server/config/price';
import { billedUsage, femtoToUsdText, NanoSum, nanoToUsd, requestCostFemtoUsd, roundedNanoUsd } from '../../server/usage/cost';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

describe('report money arithmetic', () => {
  it('nanoToUsd gives the same double for a safe-integer number as for its bigint (decimal text)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_SAFE }), (nano) => {
        expect(nanoToUsd(Number(nano))).toBe(nanoToUsd(nano));
      }),
      { numRuns: 20_000 },
    );
    for (const nano of [0n, 1n, 999_999_999n, 1_000_000_000n, 123_456_789_012n, MAX_SAFE - 1n, MAX_SAFE]) {
      expect(nanoToUsd(Number(nano))).toBe(nanoToUsd(nano));
    }
    expect(() => nanoToUsd(2 ** 53)).toThrow(RangeError);
  });

  it('roundedNanoUsd rounds half up, as (femto + 500,000) / 1e6, and turns bigint past 2^53', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 70n }), (femto) => {
        const nano = femto / 1_000_000n;
        const remainder = Number(femto % 1_000_000n);
        const expected = (femto + 500_000n) / 1_000_000n;
        const asNumber = nano <= MAX_SAFE ? Number(nano) : nano;
        expect(BigInt(roundedNanoUsd(asNumber, remainder))).toBe(expected);
        expect(BigInt(roundedNanoUsd(nano, remainder))).toBe(expected);
      }),
    );
    expect(roundedNanoUsd(0, 499_999)).toBe(0);
    expect(roundedNanoUsd(0, 500_000)).toBe(1);
    expect(roundedNanoUsd(Number.MAX_SAFE_INTEGER, 500_000)).toBe(MAX_SAFE + 1n);
    expect(roundedNanoUsd(Number.MAX_SAFE_INTEGER, 499_999)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('NanoSum is exact across 2^53, with numbers and bigints mixed', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.bigInt({ min: 0n, max: MAX_SAFE }), fc.bigInt({ min: 0n, max: 2n ** 64n }))), (values) => {
        const sum = new NanoSum();
        for (const value of values) sum.add(value <= MAX_SAFE ? Number(value) : value);
        const expected = values.reduce((total, value) => total + value, 0n);
        expect(BigInt(sum.value)).toBe(expected);
        expect(typeof sum.value).toBe(expected <= MAX_SAFE ? 'number' : 'bigint');
      }),
    );
  });
});

describe('requestCostFemtoUsd (docs/pricing.md)', () => {
  const pricing = buildPricing(
    {
      input_per_million: 3,
      output_per_million: 15,
      cache_read_per_million: 0.3,
      cache_write_per_million: 3.75,
      cache_write_1h_per_million: 6,
      long_context: {
        threshold_tokens: 1000,
        input_per_million: 6,
        output_per_million: 22.5,
        cache_read_per_million: 0.6,
        cache_write_per_million: 7.5,
        cache_write_1h_per_million: 12,
      },
    },
    (key, longContext) => {
      const nano: Record<string, bigint> = {
        input_per_million: 3_000_000_000n,
        output_per_million: 15_000_000_000n,
        cache_read_per_million: 300_000_000n,
        cache_write_per_million: 3_750_000_000n,
        cache_write_1h_per_million: 6_000_000_000n,
      };
      // The long-context rates are twice the base ones, output 1.5x.
      const value = nano[key] ?? 0n;
      return longContext ? (key === 'output_per_million' ? (value * 3n) / 2n : value * 2n) : value;
    },
  );

  it('prices each part at its own rate, exactly', () => {
    const usage = {
      promptTokens: 800,
      completionTokens: 50,
      cachedTokens: 400,
      cacheWriteTokens: 100,
      cacheWrite1hTokens: 200,
      reasoningTokens: 20,
    };
    expect(requestCostFemtoUsd(pricing, usage)).toBe(
      100n * 3_000_000_000n + 400n * 300_000_000n + 100n * 3_750_000_000n + 200n * 6_000_000_000n + 50n * 15_000_000_000n,
    );
  });

  it('switches every rate to the long-context set only over the threshold', () => {
    expect(requestCostFemtoUsd(pricing, { promptTokens: 1000, completionTokens: 0 })).toBe(1000n * 3_000_000_000n);
    expect(requestCostFemtoUsd(pricing, { promptTokens: 1001, completionTokens: 2, cachedTokens: 1 })).toBe(
      1000n * 6_000_000_000n + 600_000_000n + 2n * 22_500_000_000n,
    );
  });

  it('never bills a token twice: parts beyond the prompt total are cut, garbage counts as zero', () => {
    expect(
      requestCostFemtoUsd(pricing, { promptTokens: 10, completionTokens: 0, cachedTokens: 8, cacheWriteTokens: 5, cacheWrite1hTokens: 5 }),
    ).toBe(8n * 300_000_000n + 2n * 3_750_000_000n);
    expect(requestCostFemtoUsd(pricing, { promptTokens: 10, completionTokens: -3, cachedTokens: Number.NaN })).toBe(10n * 3_000_000_000n);
    // What the usage event stores: the same parts.
    expect(
      billedUsage({
        promptTokens: 10,
        completionTokens: 4,
        cachedTokens: 8,
        cacheWriteTokens: 5,
        cacheWrite1hTokens: 5,
        reasoningTokens: 9,
      }),
    ).toEqual({
      promptTokens: 10,
      completionTokens: 4,
      cachedTokens: 8,
      cacheWriteTokens: 2,
      cacheWrite1hTokens: 0,
      reasoningTokens: 4,
    });
  });

  it('femtoToUsdText gives the exact decimal without trailing zeros', () => {
    expect(femtoToUsdText(0n)).toBe('0');
    expect(femtoToUsdText(1n)).toBe('0.000000000000001');
    expect(femtoToUsdText(2_745_000_000_000n)).toBe('0.002745');
    expect(femtoToUsdText(12_000_000_000_000_000n)).toBe('12');
    expect(femtoToUsdText(9_223_372_036_854_775_807n)).toBe('9223.372036854775807');
  });
});
