import { beforeAll, describe, expect, it } from 'vitest';
import { chatAt, decimalToNano, exactReport, expectedError, report } from './usage-http-helpers';
import { useReportGateway } from './usage-report-gateway';

/**
 * GET /v1/usage/keys through HTTP on a real gateway and database (docs/usage-report.md): day
 * bucketing in Asia/Shanghai, ranges and their errors. Requests land on chosen instants through
 * the gateway's injected clock.
 */
const fixture = useReportGateway();
const { clock, newAccount } = fixture;

describe('days are Asia/Shanghai calendar days', () => {
  it('15:59:59.999Z is still the same day, 16:00:00.000Z is the next', async () => {
    const { key, usageKey } = await newAccount();
    const seen = [
      await chatAt(fixture.gw, clock, key, '2026-03-01T15:59:59.999Z', 'last of the first'),
      await chatAt(fixture.gw, clock, key, '2026-03-01T16:00:00.000Z', 'first of the second day'),
      await chatAt(fixture.gw, clock, key, '2026-02-28T16:00:00.000Z', 'midnight opening the first'),
      await chatAt(fixture.gw, clock, key, '2026-03-02T15:59:59.999Z', 'last of the second day'),
    ];
    const body = await exactReport(fixture.gw, usageKey, { start: '2026-02-28', end: '2026-03-03' });
    const [entry] = body.keys;
    const day = (indexes: number[]) => ({
      requests: indexes.length,
      prompt_tokens: indexes.reduce((sum, index) => sum + (seen[index]?.prompt_tokens ?? 0), 0),
      completion_tokens: indexes.reduce((sum, index) => sum + (seen[index]?.completion_tokens ?? 0), 0),
    });
    expect(
      entry?.daily.map(({ date, requests, prompt_tokens, completion_tokens }) => ({ date, requests, prompt_tokens, completion_tokens })),
    ).toEqual([
      { date: '2026-03-01', ...day([0, 2]) },
      { date: '2026-03-02', ...day([1, 3]) },
    ]);
  });

  it('across a month end and a year end (2026-12-31T16:00Z is 2027-01-01)', async () => {
    const { key, usageKey } = await newAccount();
    await chatAt(fixture.gw, clock, key, '2026-04-30T15:59:59.999Z');
    await chatAt(fixture.gw, clock, key, '2026-04-30T16:00:00.000Z');
    await chatAt(fixture.gw, clock, key, '2026-12-31T15:59:59.999Z');
    await chatAt(fixture.gw, clock, key, '2026-12-31T16:00:00.000Z');
    await chatAt(fixture.gw, clock, key, '2026-12-31T23:59:59.999Z');

    const spring = await exactReport(fixture.gw, usageKey, { start: '2026-04-30', end: '2026-05-01' });
    expect(spring.keys[0]?.daily.map((row) => [row.date, row.requests])).toEqual([
      ['2026-04-30', 1],
      ['2026-05-01', 1],
    ]);
    const newYear = await exactReport(fixture.gw, usageKey, { start: '2026-12-31', end: '2027-01-01' });
    expect(newYear.keys[0]?.daily.map((row) => [row.date, row.requests])).toEqual([
      ['2026-12-31', 1],
      ['2027-01-01', 2],
    ]);
    expect(newYear.keys[0]?.total.requests).toBe(3);
    // The range is inclusive at both ends and nothing outside it leaks in.
    const justNewYear = await exactReport(fixture.gw, usageKey, { start: '2027-01-01', end: '2027-01-01' });
    expect(justNewYear.keys[0]?.daily.map((row) => row.date)).toEqual(['2027-01-01']);
  });

  it('a leap day exists in 2028 (2028-02-28T16:00Z is 2028-02-29)', async () => {
    const { key, usageKey } = await newAccount();
    await chatAt(fixture.gw, clock, key, '2028-02-28T16:00:00.000Z');
    const body = await exactReport(fixture.gw, usageKey, { start: '2028-02-29', end: '2028-03-01' });
    expect(body.keys[0]?.daily.map((row) => row.date)).toEqual(['2028-02-29']);
  });

  it('daily rows ascend by date, days without requests have no row, totals are their sums', async () => {
    const { key, usageKey } = await newAccount();
    // Out of order on purpose, with a gap of idle days.
    for (const instant of [
      '2026-06-20T02:00:00.000Z',
      '2026-06-03T02:00:00.000Z',
      '2026-06-10T02:00:00.000Z',
      '2026-06-03T05:00:00.000Z',
    ]) {
      await chatAt(fixture.gw, clock, key, instant, `request at ${instant}`);
    }
    const body = await exactReport(fixture.gw, usageKey, { start: '2026-06-01', end: '2026-06-30' });
    const [entry] = body.keys;
    expect(entry?.daily.map((row) => [row.date, row.requests])).toEqual([
      ['2026-06-03', 2],
      ['2026-06-10', 1],
      ['2026-06-20', 1],
    ]);
    const daily = entry?.daily ?? [];
    expect(entry?.total.requests).toBe(daily.reduce((sum, row) => sum + row.requests, 0));
    expect(entry?.total.prompt_tokens).toBe(daily.reduce((sum, row) => sum + row.prompt_tokens, 0));
    expect(entry?.total.completion_tokens).toBe(daily.reduce((sum, row) => sum + row.completion_tokens, 0));
    expect(decimalToNano(entry?.total.spend_usd ?? '')).toBe(daily.reduce((sum, row) => sum + decimalToNano(row.spend_usd), 0n));
  });
});

describe('range', () => {
  let usageKey: string;
  beforeAll(async () => {
    const account = await newAccount();
    usageKey = account.usageKey;
    // One request on each side of the default range of "today = 2026-03-02".
    await chatAt(fixture.gw, clock, account.key, '2026-01-31T12:00:00.000Z'); // 2026-01-31 (end - 30): outside
    await chatAt(fixture.gw, clock, account.key, '2026-02-01T12:00:00.000Z'); // 2026-02-01 (end - 29): inside
    await chatAt(fixture.gw, clock, account.key, '2026-03-01T16:30:00.000Z'); // 2026-03-02 (today): inside
  });

  it.each([
    ['2026-03-01T15:59:59.999Z', '2026-01-31', '2026-03-01'],
    ['2026-03-01T16:00:00.000Z', '2026-02-01', '2026-03-02'],
    ['2026-12-31T16:00:00.000Z', '2026-12-03', '2027-01-01'],
    ['2028-03-14T16:00:00.000Z', '2028-02-15', '2028-03-15'], // back across a leap February
  ])('at %s the default range is %s .. %s (end = today in Asia/Shanghai, start = end - 29 days)', async (now, start, end) => {
    clock.set(now);
    const body = await exactReport(fixture.gw, usageKey);
    expect({ start: body.start, end: body.end, timezone: body.timezone, object: body.object }).toEqual({
      start,
      end,
      timezone: 'Asia/Shanghai',
      object: 'usage.keys',
    });
  });

  it('the default range counts end - 29 days and today, not end - 30', async () => {
    clock.set('2026-03-02T04:00:00.000Z');
    const body = await exactReport(fixture.gw, usageKey);
    expect(body.keys[0]?.daily.map((row) => row.date)).toEqual(['2026-02-01', '2026-03-02']);
  });

  it('only end given: start = end - 29 days; only start given: end = today', async () => {
    clock.set('2026-03-02T04:00:00.000Z');
    expect(await exactReport(fixture.gw, usageKey, { end: '2026-03-31' })).toMatchObject({ start: '2026-03-02', end: '2026-03-31' });
    expect(await exactReport(fixture.gw, usageKey, { end: '2026-03-01' })).toMatchObject({ start: '2026-01-31', end: '2026-03-01' });
    expect(await exactReport(fixture.gw, usageKey, { start: '2026-01-01' })).toMatchObject({ start: '2026-01-01', end: '2026-03-02' });
  });

  it('an explicit range is echoed and only its days are reported', async () => {
    const body = await exactReport(fixture.gw, usageKey, { start: '2026-01-31', end: '2026-02-01' });
    expect(body).toMatchObject({ start: '2026-01-31', end: '2026-02-01' });
    expect(body.keys[0]?.daily.map((row) => row.date)).toEqual(['2026-01-31', '2026-02-01']);
  });

  it('a one-day range (start = end) is allowed', async () => {
    const body = await exactReport(fixture.gw, usageKey, { start: '2026-02-01', end: '2026-02-01' });
    expect(body.keys[0]?.daily.map((row) => row.date)).toEqual(['2026-02-01']);
  });

  it.each([
    ['2026-01-01', '2026-04-02'],
    ['2026-10-01', '2026-12-31'],
    ['2027-12-01', '2028-03-01'], // across a year end and a leap February
  ])('exactly 92 days inclusive is allowed: %s .. %s', async (start, end) => {
    const response = await report(fixture.gw, usageKey, { start, end });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ start, end });
  });

  it.each([
    ['2026-01-01', '2026-04-03'],
    ['2026-10-01', '2027-01-01'],
    ['2027-12-01', '2028-03-02'],
    ['2020-01-01', '2026-01-01'],
  ])('93 days or more (end - start >= 92 days) is 400 range_too_large: %s .. %s', async (start, end) => {
    const response = await report(fixture.gw, usageKey, { start, end });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('range_too_large', 'start'));
  });

  it('only start given: 92 days up to today is allowed, 93 days are too many', async () => {
    clock.set('2026-04-02T04:00:00.000Z'); // today = 2026-04-02
    expect((await report(fixture.gw, usageKey, { start: '2026-01-01' })).status).toBe(200);
    const response = await report(fixture.gw, usageKey, { start: '2025-12-31' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('range_too_large', 'start'));
  });

  it('start after end is 400 invalid_range, also when start is after the default end (today)', async () => {
    const explicit = await report(fixture.gw, usageKey, { start: '2026-03-02', end: '2026-03-01' });
    expect(explicit.status).toBe(400);
    expect(explicit.body).toEqual(expectedError('invalid_range', 'start'));
    const yearApart = await report(fixture.gw, usageKey, { start: '2027-01-01', end: '2026-12-31' });
    expect(yearApart.body).toEqual(expectedError('invalid_range', 'start'));

    clock.set('2026-03-01T15:59:59.999Z'); // today = 2026-03-01
    const future = await report(fixture.gw, usageKey, { start: '2026-03-02' });
    expect(future.status).toBe(400);
    expect(future.body).toEqual(expectedError('invalid_range', 'start'));
  });

  const notDates = [
    '2026-02-30',
    '2026-02-29', // 2026 is not a leap year
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-1-5',
    '2026-01-5',
    '26-01-05',
    '20260105',
    '2026/01/05',
    '2026-01-05T00:00:00Z',
    ' 2026-01-05',
    '2026-01-05 ',
    '+2026-01-05',
    'garbage',
    'null',
    '',
  ];
  it.each(notDates.map((value) => [value]))('start = %j is 400 invalid_date with param start', async (value) => {
    const response = await report(fixture.gw, usageKey, { start: value, end: '2026-03-01' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_date', 'start'));
  });

  it.each(notDates.map((value) => [value]))('end = %j is 400 invalid_date with param end', async (value) => {
    const response = await report(fixture.gw, usageKey, { start: '2026-02-01', end: value });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(expectedError('invalid_date', 'end'));
  });

  it('a malformed end is reported even without start (the default start depends on it)', async () => {
    const response = await report(fixture.gw, usageKey, { end: '2026-02-30' });
    expect(response.body).toEqual(expectedError('invalid_date', 'end'));
  });

  it('2028-02-29 is a real date', async () => {
    expect((await report(fixture.gw, usageKey, { start: '2028-02-29', end: '2028-02-29' })).status).toBe(200);
  });

  it('a repeated query parameter is a 400 naming it', async () => {
    const response = await fixture.gw.http
      .get('/v1/usage/keys?start=2026-02-01&start=2026-02-02')
      .set('authorization', `Bearer ${usageKey}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param: 'start' });
  });
});
