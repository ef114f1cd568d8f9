/** A value of a usage batch's column (usage-batch-postgres.ts): what `eventValues` and `requestValues` give for pg. */
export type ColumnValue = string | number | bigint | boolean | null | undefined;

/**
 * The Postgres array literal of one column of a usage batch, the very text pg would send for
 * the JS array (its `arrayString`: every element double-quoted, `\` and `"` escaped with a
 * backslash, null and undefined as NULL, numbers, bigints and booleans as their `toString()`), so
 * Postgres reads exactly what it read when the array was bound as is.
 *
 * docs/performance.md, "Speed tricks in the code": pg escapes each element with two regular
 * expression replacements; here a string is scanned for the two characters once, and
 * replaced only when it holds one (ids, names and timestamps never do): the batch's
 * parameters cost about half the CPU.
 */
export function postgresArrayLiteral(values: readonly ColumnValue[]): string {
  let text = '{';
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index];
    if (index > 0) text += ',';
    if (value === null || value === undefined) text += 'NULL';
    else if (typeof value === 'string') text += needsEscape(value) ? `"${escapeElement(value)}"` : `"${value}"`;
    else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') text += `"${String(value)}"`;
    else throw new TypeError(`a usage batch column holds a ${typeof value}`);
  }
  return `${text}}`;
}

const QUOTE = 34;
const BACKSLASH = 92;

function needsEscape(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code === QUOTE || code === BACKSLASH) return true;
  }
  return false;
}

function escapeElement(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}
