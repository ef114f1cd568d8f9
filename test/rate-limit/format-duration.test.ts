import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../server/rate-limit/format-duration';

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [-5, '0s'],
    [1, '1ms'],
    [20, '20ms'],
    [999, '999ms'],
    [0.2, '1ms'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [1_250, '1.25s'],
    [1_001, '1.001s'],
    [59_999, '59.999s'],
    [60_000, '1m0s'],
    [360_000, '6m0s'],
    [90_500, '1m30.5s'],
    [3_600_000, '1h0m0s'],
    [3_723_000, '1h2m3s'],
  ])('%d ms -> %s', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});
