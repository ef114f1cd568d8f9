import type { AuditEntry } from '../../contract';

type Values = Record<string, unknown>;

const isPlainObject = (value: unknown): value is Values => typeof value === 'object' && value !== null && !Array.isArray(value);

const shown = (value: unknown): string => JSON.stringify(value ?? null);

/** The changes from `before` to `after` as "path: old → new", going into objects both sides have. */
function changes(before: Values, after: Values, prefix: string): string[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return names.flatMap((name) => {
    const [old, now] = [before[name], after[name]];
    if (JSON.stringify(old ?? null) === JSON.stringify(now ?? null)) return [];
    if (isPlainObject(old) && isPlainObject(now)) return changes(old, now, `${prefix}${name}.`);
    return [`${prefix}${name}: ${shown(old)} → ${shown(now)}`];
  });
}

/**
 * What changed between an audit entry's before and after (docs/operator-controls.md), as
 * "field: old → new"; inside an object both sides have, each setting by its path
 * (`set_by.rpm: "owner" → "operator"`).
 */
export function auditChangeText(entry: Pick<AuditEntry, 'before' | 'after'>): string {
  if (entry.before === null) return 'created';
  return changes(entry.before, entry.after ?? {}, '').join('; ') || 'no change';
}
