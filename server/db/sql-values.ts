import type { Dialect } from './migration-files';

/**
 * The VALUES rows of a multi-row INSERT with `rows` rows of `columns` parameters each:
 * `(?, ?), (?, ?)` for better-sqlite3 or `($1, $2), ($3, $4)` for pg, numbered row by row.
 */
export function valuesRows(rows: number, columns: number, dialect: Dialect): string {
  const tuples = new Array<string>(rows);
  for (let row = 0; row < rows; row += 1) {
    const parameters = new Array<string>(columns);
    for (let column = 0; column < columns; column += 1) {
      parameters[column] = dialect === 'sqlite' ? '?' : `$${row * columns + column + 1}`;
    }
    tuples[row] = `(${parameters.join(', ')})`;
  }
  return tuples.join(', ');
}
