import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { postgresArrayLiteral, type ColumnValue } from '../../server/db/postgres-array-literal';

// pg's own conversion of a bound JS array, which the literal must equal to the character.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

describe('postgresArrayLiteral', () => {
  const columns: ColumnValue[][] = [
    [],
    [null],
    ['0190f3a2-1b2c-7d4e-8f00-123456789abc', 'req_x', '2026-11-28T20:06:00.123'],
    ['with "quotes"', 'back\\slash', '\\"', '"', '\\', '', 'NULL', 'a,b', '{x}', ' spaced ', 'ünïcödé \u{1F600}', 'line\nbreak'],
    [0, 12, -3, 2_147_483_647, 1.5, Number.NaN],
    [true, false, null, undefined],
    ['123456789012345678901', 9_223_372_036_854_775_807n, null, 'x'],
    // Written by one join (no NULL, nothing to escape) and by one repeat (NULLs only).
    ['x', '', 7, -0, 1e21, 12n, true, false, 'NULL'],
    [null, undefined, null],
    [undefined],
    ['x', null],
  ];
  for (const values of columns) {
    it(`writes ${JSON.stringify(values, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value))} as pg does`, () => {
      expect(postgresArrayLiteral(values)).toBe(prepareValue(values));
    });
  }

  it('refuses a value pg would convert some other way', () => {
    expect(() => postgresArrayLiteral([new Date(0) as unknown as ColumnValue])).toThrow(TypeError);
    expect(() => postgresArrayLiteral(['x', new Date(0) as unknown as ColumnValue])).toThrow(TypeError);
  });
});
