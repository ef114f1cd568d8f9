import { describe, expect, it } from 'vitest';
import type { DetailedUsageReport } from '../../../contract';
import { usageCsv } from '../../../dashboard/src/usage/csv';

type KeyEntry = DetailedUsageReport['keys'][number];
type Day = KeyEntry['daily'][number];

const breakdown = { cached_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, reasoning_tokens: 0 };
const day = (values: Partial<Day> = {}): Day => ({
  date: '2026-11-01',
  requests: 1,
  prompt_tokens: 1,
  completion_tokens: 1,
  spend_usd: 0,
  ...breakdown,
  ...values,
});

const key = (name: string, daily: Day[]): KeyEntry => ({
  name,
  hint: 'sk-...abcd',
  status: 'ACTIVE',
  blocked: false,
  created_at: '2026-11-01T00:00:00.000Z',
  total: { spend_usd: 0, requests: 0, prompt_tokens: 0, completion_tokens: 0, ...breakdown },
  daily,
  models: [],
});

const report = (keys: KeyEntry[]): DetailedUsageReport => ({
  object: 'usage.keys',
  start: '2026-11-01',
  end: '2026-11-02',
  timezone: 'Asia/Shanghai',
  keys,
});

const HEADER =
  'date,key_name,key_hint,key_status,requests,prompt_tokens,completion_tokens,cached_tokens,cache_write_tokens,cache_write_1h_tokens,reasoning_tokens,spend_usd';

describe('usage CSV', () => {
  it('has a header and one CRLF line per key and day, the breakdown, spend with 9 decimals', () => {
    const text = usageCsv(
      report([
        key('main', [
          day({
            requests: 2,
            prompt_tokens: 10,
            completion_tokens: 5,
            cached_tokens: 6,
            cache_write_tokens: 2,
            cache_write_1h_tokens: 1,
            reasoning_tokens: 3,
            spend_usd: 0.0000045,
          }),
        ]),
      ]),
    );
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines[1]).toBe('2026-11-01,main,sk-...abcd,ACTIVE,2,10,5,6,2,1,3,0.000004500');
    expect(lines.at(-1)).toBe('');
  });

  it('quotes separators and quotes, and defuses spreadsheet formulas in names', () => {
    const lines = usageCsv(report([key('a,"b"', [day()]), key('=HYPERLINK("x")', [day()]), key('-1', [day()])])).split('\r\n');
    expect(lines[1]?.startsWith('2026-11-01,"a,""b""",')).toBe(true);
    expect(lines[2]?.startsWith(`2026-11-01,"'=HYPERLINK(""x"")",`)).toBe(true);
    expect(lines[3]?.startsWith("2026-11-01,'-1,")).toBe(true);
  });

  it('has only the header for a report without traffic', () => {
    expect(usageCsv(report([key('idle', [])]))).toBe(`${HEADER}\r\n`);
  });
});
