import type { DetailedUsageReport } from '../../../contract';

/** The breakdown columns are parts of prompt_tokens (cached, cache writes) and completion_tokens (reasoning). */
const HEADER = [
  'date',
  'key_name',
  'key_hint',
  'key_status',
  'requests',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
  'spend_usd',
];

/**
 * One cell. Quoted when it holds a separator, a quote or a line break; a leading = + - @
 * is defused with an apostrophe so a spreadsheet does not run a key name as a formula.
 */
function cell(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The report as CSV: one row per key and Asia/Shanghai day with traffic, spend with 9 decimals. */
export function usageCsv(report: DetailedUsageReport): string {
  const lines = [HEADER.join(',')];
  for (const key of report.keys) {
    for (const row of key.daily) {
      lines.push(
        [
          row.date,
          key.name,
          key.hint,
          key.status,
          row.requests,
          row.prompt_tokens,
          row.completion_tokens,
          row.cached_tokens,
          row.cache_write_tokens,
          row.cache_write_1h_tokens,
          row.reasoning_tokens,
          row.spend_usd.toFixed(9),
        ]
          .map(cell)
          .join(','),
      );
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
