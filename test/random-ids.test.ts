import { describe, expect, it } from 'vitest';
import { randomHexIds } from '../server/random-ids';

describe('randomHexIds', () => {
  it('gives 32 lowercase hex characters per id, none twice, across refills of its pool', () => {
    const next = randomHexIds();
    const ids = Array.from({ length: 2_000 }, () => next());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives two generators different ids', () => {
    const first = randomHexIds();
    const second = randomHexIds();
    expect(first()).not.toBe(second());
  });
});
