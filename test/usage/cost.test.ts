import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NanoSum, nanoToUsd, roundedNanoUsd } from '../../server/usage/cost';

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
