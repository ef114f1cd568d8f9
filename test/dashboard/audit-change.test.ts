import { describe, expect, it } from 'vitest';
import { auditChangeText } from '../../dashboard/src/audit-change';

describe('the audit log change text', () => {
  it('names a creation, and an update that changed nothing', () => {
    expect(auditChangeText({ before: null, after: { name: 'laptop' } })).toBe('created');
    expect(auditChangeText({ before: { name: 'laptop' }, after: { name: 'laptop' } })).toBe('no change');
  });

  it('shows each changed field, old → new', () => {
    expect(auditChangeText({ before: { name: 'laptop', rpm: 60, models: null }, after: { name: 'desk', rpm: 60, models: ['a'] } })).toBe(
      'name: "laptop" → "desk"; models: null → ["a"]',
    );
  });

  it('reads into an object both sides have, so who set a setting shows by its own path', () => {
    const before = { rpm: 100, set_by: { rpm: 'owner', tpm: 'operator' } };
    const after = { rpm: 50, set_by: { rpm: 'operator', tpm: 'operator' } };
    expect(auditChangeText({ before, after })).toBe('rpm: 100 → 50; set_by.rpm: "owner" → "operator"');
  });

  it('shows an object set or removed whole', () => {
    const budget = { amount_usd: 10, period: 'day' };
    expect(auditChangeText({ before: { budget: null }, after: { budget } })).toBe('budget: null → {"amount_usd":10,"period":"day"}');
    expect(auditChangeText({ before: { budget }, after: { budget: null } })).toBe('budget: {"amount_usd":10,"period":"day"} → null');
  });
});
