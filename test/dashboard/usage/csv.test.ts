import { describe, expect, it } from 'vitest';
import type { UsageReport } from '../../../contract';
import { usageCsv } from '../../../dashboard/src/usage/csv';

const key = (name: string, daily: UsageReport['keys'][number]['daily']): UsageReport['keys'][number] => ({
  name,
  hint: 'sk-...abcd',
  status: 'ACTIVE',
  blocked: false,
  created_at: '2026-11-01T00:00:00.000Z',
  total: { spend_usd: 0, requests: 0, prompt_tokens: 0, completion_tokens: 0 },
  daily,
});

const report = (keys: UsageReport['keys']): UsageReport => ({ object: 'usage.keys', start: '2026-11-01', end: '2026-11-02', timezone: 'Asia/Shanghai', keys });

describe('usage CSV', () => {
  it('has a header and one CRLF line per key and day, spend with 9 decimals', () => {
    const text = usageCsv(
      report([key('main', [{ date: '2026-11-01', requests: 2, prompt_tokens: 10, completion_tokens: 5, spend_usd: 0.0000045 }])]),
    );
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('date,key_name,key_hint,key_status,requests,prompt_tokens,completion_tokens,spend_usd');
    expect(lines[1]).toBe('2026-11-01,main,sk-...abcd,ACTIVE,2,10,5,0.000004500');
    expect(lines.at(-1)).toBe('');
  });

  it('quotes separators and quotes, and defuses spreadsheet formulas in names', () => {
    const day = { date: '2026-11-01', requests: 1, prompt_tokens: 1, completion_tokens: 1, spend_usd: 0 };
    const lines = usageCsv(report([key('a,"b"', [day]), key('=HYPERLINK("x")', [day]), key('-1', [day])])).split('\r\n');
    expect(lines[1]?.startsWith('2026-11-01,"a,""b""",')).toBe(true);
    expect(lines[2]?.startsWith(`2026-11-01,"'=HYPERLINK(""x"")",`)).toBe(true);
    expect(lines[3]?.startsWith("2026-11-01,'-1,")).toBe(true);
  });

  it('has only the header for a report without traffic', () => {
    expect(usageCsv(report([key('idle', [])]))).toBe('date,key_name,key_hint,key_status,requests,prompt_tokens,completion_tokens,spend_usd\r\n');
  });
});
