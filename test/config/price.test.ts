import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../server/config/load-config';
import { parseDecimalToNano } from '../../server/config/price';

function catalogue(input: string, output: string): string {
  return `providers:
  mock: { type: mock }
models:
  - id: priced
    provider: mock
    capabilities: [chat]
    context_window: 1000
    pricing:
      input_per_million: ${input}
      output_per_million: ${output}
`;
}

function prices(input: string, output: string): [bigint, bigint] {
  const model = parseConfigText(catalogue(input, output), 'prices.yaml', {}).models[0];
  if (!model) throw new Error('no model');
  return [model.pricing.inputNanoPerMillion, model.pricing.outputNanoPerMillion];
}

describe('prices are read exactly from the YAML text', () => {
  it('turns decimals into integer nano-dollars', () => {
    expect(prices('0.0375', '0.15')).toEqual([37_500_000n, 150_000_000n]);
    expect(prices('3', '15.000000001')).toEqual([3_000_000_000n, 15_000_000_001n]);
  });

  it('keeps values that floats get wrong exact', () => {
    const [input, output] = prices('0.1', '0.2');
    expect(input + output).toBe(300_000_000n); // 0.1 + 0.2 !== 0.3 in floats
    expect(0.1 + 0.2).not.toBe(0.3);
    // 15 significant digits: the float 999999.123456789 is not this decimal, the nano value is.
    expect(prices('999999.123456789', '0')[0]).toBe(999_999_123_456_789n);
  });

  it('accepts integers, exponents and trailing zeros', () => {
    expect(prices('0', '1e-3')).toEqual([0n, 1_000_000n]);
    expect(prices('2.50', '1.2E+1')).toEqual([2_500_000_000n, 12_000_000_000n]);
    expect(prices('0.1000000000', '.5')).toEqual([100_000_000n, 500_000_000n]);
  });

  it('refuses more than 9 decimal places, with the line', () => {
    let problems: ConfigError['problems'] = [];
    try {
      prices('0.0000000001', '0.1234567891');
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems).toEqual([
      expect.objectContaining({
        path: 'models[0].pricing.input_per_million',
        line: 9,
        message: expect.stringMatching(/at most 9 decimal places/),
      }),
      expect.objectContaining({
        path: 'models[0].pricing.output_per_million',
        line: 10,
        message: expect.stringMatching(/at most 9 decimal places/),
      }),
    ]);
  });

  it('refuses digits beyond nano precision even where the float rounds them away', () => {
    // 0.10000000000000000001 parses to the float 0.1; the text still has a 20th decimal.
    expect(() => prices('0.10000000000000000001', '0')).toThrow(
      /prices\.yaml:9:26: models\[0\]\.pricing\.input_per_million: must have at most 9 decimal places/,
    );
  });

  it('refuses negative, quoted and non-finite prices', () => {
    expect(() => prices('-1', '0')).toThrow(/input_per_million: must be greater than or equal to 0/);
    expect(() => prices('"0.5"', '0')).toThrow(/input_per_million: expected number, got string/);
    expect(() => prices('.inf', '0')).toThrow(/input_per_million:/);
  });
});

describe('parseDecimalToNano', () => {
  it.each([
    ['0.0375', 37_500_000n],
    ['1', 1_000_000_000n],
    ['0.000000001', 1n],
    ['12.5e-2', 125_000_000n],
    ['0x10', 16_000_000_000n],
    ['-0', 0n],
  ])('%s -> %s', (text, nano) => {
    expect(parseDecimalToNano(text)).toEqual({ ok: true, nano });
  });

  it.each(['0.0000000001', 'abc', '', '.', '1.2.3', '-1'])('refuses %j', (text) => {
    expect(parseDecimalToNano(text).ok).toBe(false);
  });
});

describe('cache and long-context prices (docs/pricing.md)', () => {
  const withPricing = (pricing: string) => `providers:
  mock: { type: mock }
models:
  - id: priced
    provider: mock
    capabilities: [chat]
    context_window: 300000
    pricing:
${pricing}
`;
  const pricingOf = (pricing: string) => {
    const model = parseConfigText(withPricing(pricing), 'prices.yaml', {}).models[0];
    if (!model) throw new Error('no model');
    return model.pricing;
  };

  it('reads every price exactly, the long-context block too', () => {
    const pricing = pricingOf(`      input_per_million: 3
      output_per_million: 15
      cache_read_per_million: 0.3
      cache_write_per_million: 3.75
      cache_write_1h_per_million: 6
      long_context: { threshold_tokens: 200000, input_per_million: 6, output_per_million: 22.5, cache_read_per_million: 0.6, cache_write_per_million: 7.5, cache_write_1h_per_million: 12 }`);
    expect(pricing).toMatchObject({
      cacheReadNanoPerMillion: 300_000_000n,
      cacheWriteNanoPerMillion: 3_750_000_000n,
      cacheWrite1hNanoPerMillion: 6_000_000_000n,
      cacheReadPerMillion: 0.3,
      longContext: {
        thresholdTokens: 200_000,
        inputNanoPerMillion: 6_000_000_000n,
        outputNanoPerMillion: 22_500_000_000n,
        cacheReadNanoPerMillion: 600_000_000n,
        cacheWriteNanoPerMillion: 7_500_000_000n,
        cacheWrite1hNanoPerMillion: 12_000_000_000n,
      },
    });
  });

  it('prices a cache price not given at the input price of its block, and shows it as absent', () => {
    const pricing = pricingOf(`      input_per_million: 0.1
      output_per_million: 0.2
      long_context: { threshold_tokens: 1000, input_per_million: 0.3, output_per_million: 0.4, cache_read_per_million: 0.01 }`);
    expect(pricing).toMatchObject({
      cacheReadNanoPerMillion: 100_000_000n,
      cacheWriteNanoPerMillion: 100_000_000n,
      cacheWrite1hNanoPerMillion: 100_000_000n,
    });
    expect(pricing.cacheReadPerMillion).toBeUndefined();
    expect(pricing.longContext).toMatchObject({
      cacheReadNanoPerMillion: 10_000_000n,
      cacheWriteNanoPerMillion: 300_000_000n,
      cacheWrite1hNanoPerMillion: 300_000_000n,
    });
  });

  it('reports bad cache and long-context prices with their path', () => {
    expect(() =>
      pricingOf(`      input_per_million: 1
      output_per_million: 1
      cache_read_per_million: 0.0000000001`),
    ).toThrow(/models\[0\]\.pricing\.cache_read_per_million: must have at most 9 decimal places/);
    const bad = () =>
      pricingOf(`      input_per_million: 1
      output_per_million: 1
      long_context: { threshold_tokens: 0, input_per_million: 1, output_per_million: 1, cache_write_per_million: -1, extra: 1 }`);
    expect(bad).toThrow(/long_context\.threshold_tokens: must be greater than 0/);
    expect(bad).toThrow(/long_context\.cache_write_per_million: must be greater than or equal to 0/);
    expect(bad).toThrow(/long_context\.extra: unknown key/);
    expect(() =>
      pricingOf(`      input_per_million: 1
      output_per_million: 1
      long_context: { threshold_tokens: 10, input_per_million: 1 }`),
    ).toThrow(/long_context\.output_per_million: is required/);
  });
});
