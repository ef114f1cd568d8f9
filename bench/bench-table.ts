/** One line of a benchmark's result table; `bench/run.ts` can concatenate the rows of several. */
export interface BenchRow {
  metric: string;
  value: string;
  target: string;
  verdict: 'PASS' | 'FAIL' | 'info';
}

/** Plain text, aligned columns: metric | value | target | verdict. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header: BenchRow = { metric: 'metric', value: 'value', target: 'target', verdict: 'info' };
  const cells = [header, ...rows].map((row, index) => [row.metric, row.value, row.target, index === 0 ? 'verdict' : row.verdict]);
  const widths = [0, 1, 2, 3].map((column) => Math.max(...cells.map((line) => (line[column] ?? '').length)));
  const format = (line: string[]) =>
    line
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join(' | ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('-|-');
  const [first, ...rest] = cells;
  return [format(first ?? []), rule, ...rest.map(format)].join('\n');
}
