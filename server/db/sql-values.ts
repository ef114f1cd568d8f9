/** How a statement's parameters are written: better-sqlite3 takes `?`, pg takes `$1`, `$2`, … */
export type PlaceholderStyle = 'sqlite' | 'postgres';

/**
 * The VALUES rows of a multi-row INSERT with `rows` rows of `columns` parameters each:
 * `(?, ?), (?, ?)` or `($1, $2), ($3, $4)`, parameters numbered row by row.
 */
export function valuesRows(rows: number, columns: number, style: PlaceholderStyle): string {
  const tuples = new Array<string>(rows);
  for (let row = 0; row < rows; row += 1) {
    const parameters = new Array<string>(columns);
    for (let column = 0; column < columns; column += 1) {
      parameters[column] = style === 'sqlite' ? '?' : `$${row * columns + column + 1}`;
    }
    tuples[row] = `(${parameters.join(', ')})`;
  }
  return tuples.join(', ');
}
