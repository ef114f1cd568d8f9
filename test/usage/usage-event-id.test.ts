import { describe, expect, it } from 'vitest';
import { newUsageEventId } from '../../server/usage/usage-event-id';

describe('newUsageEventId', () => {
  it('is a version 7 UUID carrying the time, unique within one millisecond', () => {
    const at = Date.parse('2026-03-01T08:00:00.000Z');
    const ids = Array.from({ length: 10_000 }, () => newUsageEventId(at));
    for (const id of ids.slice(0, 100)) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sorts by time: later ids come after earlier ones', () => {
    const times = [0, 1, 999, 1_000, Date.parse('2026-03-01T08:00:00.000Z'), Date.parse('2099-12-31T23:59:59.999Z')];
    const ids = times.map((time) => newUsageEventId(time));
    expect([...ids].sort()).toEqual(ids);
  });
});
