import { expect, it } from 'vitest';
import { dailyCostFemtoUsd } from '../../server/db/rows';
import type { UsageDailyRow, UsageEventRow } from '../../server/db/types';
import { byKeyAndDay, usageEvent, describeStoreUsage } from './store-fixtures';

/** The sums of rows whose events had no cached, cache-written or reasoning tokens. */
const NO_CACHE_OR_REASONING = { cachedTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0 };

/** Key k_a's sums on 2026-03-01 (three events), in the daily and the per-model rows. */
const K_A_MARCH_1 = {
  requests: 3,
  promptTokens: 130,
  completionTokens: 13,
  cachedTokens: 9,
  cacheWriteTokens: 3,
  cacheWrite1hTokens: 6,
  reasoningTokens: 8,
};

await describeStoreUsage((fixture) => {
  it('records events and sums them per key and day, across batches', async () => {
    await fixture.store.recordUsage([
      usageEvent({
        accountId: 'acc_u1',
        keyId: 'k_a',
        day: '2026-03-01',
        promptTokens: 10,
        completionTokens: 1,
        cachedTokens: 4,
        cacheWriteTokens: 3,
        costFemtoUsd: 1_500_000n,
      }),
      usageEvent({
        accountId: 'acc_u1',
        keyId: 'k_a',
        day: '2026-03-01',
        promptTokens: 20,
        completionTokens: 2,
        cachedTokens: 5,
        cacheWrite1hTokens: 6,
        reasoningTokens: 1,
        costFemtoUsd: 700_000n,
      }),
      usageEvent({ accountId: 'acc_u1', keyId: 'k_a', day: '2026-03-02', promptTokens: 30, completionTokens: 3, costFemtoUsd: 1n }),
      usageEvent({
        accountId: 'acc_u1',
        keyId: 'k_b',
        day: '2026-03-01',
        promptTokens: 0,
        completionTokens: 0,
        costFemtoUsd: 0n,
        status: 502,
        errorCode: 'upstream_unavailable',
      }),
      usageEvent({ accountId: 'acc_u2', keyId: 'k_c', day: '2026-03-01', promptTokens: 5, completionTokens: 5, costFemtoUsd: 5n }),
    ]);
    await fixture.store.recordUsage([
      usageEvent({
        accountId: 'acc_u1',
        keyId: 'k_a',
        day: '2026-03-01',
        promptTokens: 100,
        completionTokens: 10,
        reasoningTokens: 7,
        costFemtoUsd: 999_999n,
        stream: true,
        estimated: true,
      }),
    ]);
    await fixture.store.recordUsage([]);

    expect(byKeyAndDay(await fixture.store.dailyUsage('acc_u1', '2026-03-01', '2026-03-02'))).toEqual([
      {
        keyId: 'k_a',
        accountId: 'acc_u1',
        day: '2026-03-01',
        ...K_A_MARCH_1,
        costNanoUsd: 3,
        costFemtoRemainder: 199_999,
      },
      {
        keyId: 'k_a',
        accountId: 'acc_u1',
        day: '2026-03-02',
        requests: 1,
        promptTokens: 30,
        completionTokens: 3,
        ...NO_CACHE_OR_REASONING,
        costNanoUsd: 0,
        costFemtoRemainder: 1,
      },
      {
        keyId: 'k_b',
        accountId: 'acc_u1',
        day: '2026-03-01',
        requests: 1,
        promptTokens: 0,
        completionTokens: 0,
        ...NO_CACHE_OR_REASONING,
        costNanoUsd: 0,
        costFemtoRemainder: 0,
      },
    ]);
    expect(await fixture.store.dailyUsage('acc_u2', '2026-03-01', '2026-03-01')).toEqual([
      {
        keyId: 'k_c',
        accountId: 'acc_u2',
        day: '2026-03-01',
        requests: 1,
        promptTokens: 5,
        completionTokens: 5,
        ...NO_CACHE_OR_REASONING,
        costNanoUsd: 0,
        costFemtoRemainder: 5,
      },
    ]);
    expect(await fixture.store.countUsageEvents({ accountId: 'acc_u1' })).toBe(5);
    // The admin report's per-model split, summed from the events.
    expect(await fixture.store.modelUsage('acc_u1', '2026-03-01', '2026-03-01')).toEqual(
      expect.arrayContaining([
        {
          keyId: 'k_a',
          model: 'gpt-4o-mini',
          deployment: null,
          ...K_A_MARCH_1,
          costFemtoUsd: 3_199_999n,
        },
        {
          keyId: 'k_b',
          model: 'gpt-4o-mini',
          deployment: null,
          requests: 1,
          promptTokens: 0,
          completionTokens: 0,
          ...NO_CACHE_OR_REASONING,
          costFemtoUsd: 0n,
        },
      ]),
    );
    expect(await fixture.store.modelUsage('acc_u1', '2026-03-01', '2026-03-01')).toHaveLength(2);
    expect(await fixture.store.countUsageEvents({ accountId: 'acc_u2' })).toBe(1);
  });

  it("sums a key's spend on a model past the 64-bit range of femto-dollars exactly", async () => {
    // Two calls of $6,000.000000000000001 each: 1.2e19 femto-dollars together, past 2^63 - 1.
    const expensive = 6_000_000_000_000_000_001n;
    await fixture.store.recordUsage([
      usageEvent({ accountId: 'acc_u2', keyId: 'k_spender', day: '2026-07-01', costFemtoUsd: expensive }),
      usageEvent({ accountId: 'acc_u2', keyId: 'k_spender', day: '2026-07-02', costFemtoUsd: expensive }),
    ]);
    const rows = await fixture.store.modelUsage('acc_u2', '2026-07-01', '2026-07-02');
    expect(rows).toEqual([expect.objectContaining({ keyId: 'k_spender', requests: 2, costFemtoUsd: 2n * expensive })]);
  });

  it('filters the rollup by account and an inclusive day range', async () => {
    await fixture.store.recordUsage(
      ['2026-04-01', '2026-04-15', '2026-04-30', '2026-05-01'].flatMap((day) => [
        usageEvent({ accountId: 'acc_u2', keyId: 'k_r2', day }),
        usageEvent({ accountId: 'acc_u2', keyId: 'k_r1', day }),
        usageEvent({ accountId: 'acc_u1', keyId: 'k_r3', day }),
      ]),
    );
    const rows = byKeyAndDay(await fixture.store.dailyUsage('acc_u2', '2026-04-01', '2026-04-30'));
    expect(rows.map((row) => `${row.keyId} ${row.day}`)).toEqual([
      'k_r1 2026-04-01',
      'k_r1 2026-04-15',
      'k_r1 2026-04-30',
      'k_r2 2026-04-01',
      'k_r2 2026-04-15',
      'k_r2 2026-04-30',
    ]);
    expect(await fixture.store.dailyUsage('acc_u2', '2026-04-16', '2026-04-29')).toEqual([]);
    expect(await fixture.store.dailyUsage('acc_nobody', '2026-01-01', '2026-12-31')).toEqual([]);
  });

  it('keeps exact cost sums beyond 2^63 femto-dollars in the rollup', async () => {
    // One event may cost up to int64 femto-dollars (9,223 USD); a day's sum may not fit.
    const big = 9_000_000_000_000_000_123n;
    await fixture.store.recordUsage([
      usageEvent({ accountId: 'acc_u1', keyId: 'k_big', day: '2026-06-01', costFemtoUsd: big }),
      usageEvent({ accountId: 'acc_u1', keyId: 'k_big', day: '2026-06-01', costFemtoUsd: big }),
    ]);
    for (let batch = 0; batch < 3; batch++) {
      await fixture.store.recordUsage([
        usageEvent({ accountId: 'acc_u1', keyId: 'k_big', day: '2026-06-01', costFemtoUsd: big + 999_999n }),
      ]);
    }
    const [row] = await fixture.store.dailyUsage('acc_u1', '2026-06-01', '2026-06-01');
    const expected = 5n * big + 3n * 999_999n;
    expect(expected > 2n ** 63n * 4n).toBe(true);
    expect(row).toEqual({
      keyId: 'k_big',
      accountId: 'acc_u1',
      day: '2026-06-01',
      requests: 5,
      promptTokens: 500,
      completionTokens: 100,
      ...NO_CACHE_OR_REASONING,
      costNanoUsd: Number(expected / 1_000_000n),
      costFemtoRemainder: Number(expected % 1_000_000n),
    });
    expect(row && dailyCostFemtoUsd(row)).toBe(expected);
  });

  it('reads a day beyond 2^53 nano-dollars back exactly, as a bigint', async () => {
    // 1,000 events at the largest cost one event may have (int64 femto-dollars, 9,223 USD).
    const max = 9_223_372_036_854_775_807n;
    const events = Array.from({ length: 1_000 }, () =>
      usageEvent({ accountId: 'acc_u1', keyId: 'k_huge', day: '2026-06-02', costFemtoUsd: max }),
    );
    await fixture.store.recordUsage(events);
    const [row] = await fixture.store.dailyUsage('acc_u1', '2026-06-02', '2026-06-02');
    expect(row?.costNanoUsd).toBe((1_000n * max) / 1_000_000n);
    expect(typeof row?.costNanoUsd).toBe('bigint');
    expect(row?.costFemtoRemainder).toBe(Number((1_000n * max) % 1_000_000n));
  });

  it("reads the report's rows one by one exactly as dailyUsage reads them, whatever a key id holds", async () => {
    const max = 9_223_372_036_854_775_807n;
    const keyIds = ['k_plain', 'k,odd;id:1', 'k_\u{1F600}_ü'];
    const days = ['2026-07-10', '2026-07-11', '2026-07-12'];
    const events = keyIds.flatMap((keyId, keyIndex) =>
      days
        .filter((_, dayIndex) => dayIndex !== keyIndex)
        .flatMap((day, dayIndex) =>
          Array.from({ length: keyIndex === 2 && dayIndex === 0 ? 1_000 : 1 + dayIndex }, (_, index) =>
            usageEvent({
              accountId: 'acc_u1',
              keyId,
              day,
              promptTokens: 1_000 * keyIndex + index,
              completionTokens: 7 + dayIndex,
              // The last key's first day beyond 2^53 nano-dollars (1,000 events at the largest cost).
              costFemtoUsd: keyIndex === 2 && dayIndex === 0 ? max : BigInt(123_456_789 * (index + 1)),
            }),
          ),
        ),
    );
    await fixture.store.recordUsage(events);
    const start = '2026-07-09';
    const asRows: Array<
      Pick<UsageDailyRow, 'keyId' | 'day' | 'requests' | 'promptTokens' | 'completionTokens' | 'costNanoUsd' | 'costFemtoRemainder'>
    > = [];
    await fixture.store.keyDayUsage(
      'acc_u1',
      start,
      '2026-07-12',
      (keyId, offset, requests, promptTokens, completionTokens, costNanoUsd, costFemtoRemainder) =>
        asRows.push({
          keyId,
          day: `2026-07-${String(9 + offset).padStart(2, '0')}`,
          requests,
          promptTokens,
          completionTokens,
          costNanoUsd,
          costFemtoRemainder,
        }),
    );
    expect([...new Set(asRows.map((row) => row.keyId))].sort()).toEqual([...keyIds].sort());
    const daily = await fixture.store.dailyUsage('acc_u1', start, '2026-07-12');
    expect(daily).toHaveLength(6);
    expect(byKeyAndDay(asRows as UsageDailyRow[])).toEqual(
      byKeyAndDay(daily).map((row) => ({
        keyId: row.keyId,
        day: row.day,
        requests: row.requests,
        promptTokens: row.promptTokens,
        completionTokens: row.completionTokens,
        costNanoUsd: row.costNanoUsd,
        costFemtoRemainder: row.costFemtoRemainder,
      })),
    );
    expect(asRows.some((row) => typeof row.costNanoUsd === 'bigint')).toBe(true);
    // The last day alone: a read with no key id of more than one UTF-16 unit per character.
    const lastDay: Array<[string, number, number]> = [];
    await fixture.store.keyDayUsage('acc_u1', '2026-07-12', '2026-07-12', (keyId, offset, requests, promptTokens) =>
      lastDay.push([keyId, offset, requests + promptTokens]),
    );
    expect(lastDay.sort()).toEqual(
      asRows
        .filter((row) => row.day === '2026-07-12')
        .map((row): [string, number, number] => [row.keyId, 0, row.requests + row.promptTokens])
        .sort(),
    );
    expect(lastDay.map(([keyId]) => keyId).sort()).toEqual(['k,odd;id:1', 'k_plain']);
    const outside: string[] = [];
    await fixture.store.keyDayUsage('acc_u1', '2026-07-13', '2026-07-14', (keyId) => outside.push(keyId));
    expect(outside).toEqual([]);
  });

  it('records a batch given twice once, in the events and in the rollup (a retry after a lost COMMIT acknowledgement)', async () => {
    const batch = [
      usageEvent({
        accountId: 'acc_u2',
        keyId: 'k_retry',
        day: '2026-06-10',
        promptTokens: 7,
        completionTokens: 3,
        costFemtoUsd: 400_000n,
      }),
      usageEvent({
        accountId: 'acc_u2',
        keyId: 'k_retry',
        day: '2026-06-10',
        promptTokens: 11,
        completionTokens: 5,
        costFemtoUsd: 700_001n,
      }),
      usageEvent({ accountId: 'acc_u2', keyId: 'k_retry', day: '2026-06-11', promptTokens: 13, completionTokens: 0, costFemtoUsd: 9n }),
    ];
    const eventsBefore = await fixture.store.countUsageEvents({ accountId: 'acc_u2' });
    await fixture.store.recordUsage(batch);
    const once = byKeyAndDay(await fixture.store.dailyUsage('acc_u2', '2026-06-10', '2026-06-11'));
    expect(once.map((row) => [row.day, row.requests, row.promptTokens, row.completionTokens, dailyCostFemtoUsd(row)])).toEqual([
      ['2026-06-10', 2, 18, 8, 1_100_001n],
      ['2026-06-11', 1, 13, 0, 9n],
    ]);

    await fixture.store.recordUsage(batch.map((event) => ({ ...event })));
    expect(await fixture.store.countUsageEvents({ accountId: 'acc_u2' })).toBe(eventsBefore + 3);
    expect(byKeyAndDay(await fixture.store.dailyUsage('acc_u2', '2026-06-10', '2026-06-11'))).toEqual(once);

    // A retried batch that also carries new events: only the new ones count.
    const fresh = usageEvent({
      accountId: 'acc_u2',
      keyId: 'k_retry',
      day: '2026-06-11',
      promptTokens: 1,
      completionTokens: 1,
      costFemtoUsd: 1n,
    });
    await fixture.store.recordUsage([batch[2] as UsageEventRow, fresh, batch[0] as UsageEventRow]);
    expect(await fixture.store.countUsageEvents({ accountId: 'acc_u2' })).toBe(eventsBefore + 4);
    const after = byKeyAndDay(await fixture.store.dailyUsage('acc_u2', '2026-06-10', '2026-06-11'));
    expect(after.map((row) => [row.day, row.requests, row.promptTokens, row.completionTokens, dailyCostFemtoUsd(row)])).toEqual([
      ['2026-06-10', 2, 18, 8, 1_100_001n],
      ['2026-06-11', 2, 14, 1, 10n],
    ]);
  });

  it('counts an event id repeated inside one batch once', async () => {
    const event = usageEvent({ accountId: 'acc_u2', keyId: 'k_twice', day: '2026-06-12', costFemtoUsd: 5n });
    await fixture.store.recordUsage([event, { ...event }]);
    const rows = await fixture.store.dailyUsage('acc_u2', '2026-06-12', '2026-06-12');
    expect(rows.map((row) => [row.requests, dailyCostFemtoUsd(row)])).toEqual([[1, 5n]]);
  });

  it('records a batch of over 500 events, skipping those already stored', async () => {
    const days = ['2026-06-20', '2026-06-21', '2026-06-22'];
    const batch = Array.from({ length: 1_203 }, (_, index) =>
      usageEvent({ accountId: 'acc_u2', keyId: `k_many_${index % 7}`, day: days[index % 3] as string, costFemtoUsd: BigInt(index) }),
    );
    const before = await fixture.store.countUsageEvents({ accountId: 'acc_u2' });
    // Part of it was stored before: a stretch of its middle, then its tail again after it.
    await fixture.store.recordUsage(batch.slice(450, 620));
    await fixture.store.recordUsage(batch);
    await fixture.store.recordUsage(batch.slice(1_000));
    expect(await fixture.store.countUsageEvents({ accountId: 'acc_u2' })).toBe(before + 1_203);
    const rows = await fixture.store.dailyUsage('acc_u2', days[0] as string, days[2] as string);
    const many = rows.filter((row) => row.keyId.startsWith('k_many_'));
    expect(many).toHaveLength(21);
    expect(many.reduce((sum, row) => sum + row.requests, 0)).toBe(1_203);
    expect(many.reduce((sum, row) => sum + dailyCostFemtoUsd(row), 0n)).toBe(BigInt((1_202 * 1_203) / 2));
  });

  it('prunes raw events received before a time and keeps the rollup', async () => {
    await fixture.store.recordUsage([
      usageEvent({ accountId: 'acc_u2', keyId: 'k_p', day: '2026-08-01', receivedAt: new Date('2026-07-31T16:00:00.000Z') }),
      usageEvent({ accountId: 'acc_u2', keyId: 'k_p', day: '2026-08-01', receivedAt: new Date('2026-08-01T15:59:59.999Z') }),
      usageEvent({ accountId: 'acc_u2', keyId: 'k_p', day: '2026-08-02', receivedAt: new Date('2026-08-01T16:00:00.000Z') }),
    ]);
    const total = await fixture.store.countUsageEvents();
    const rollupBefore = await fixture.store.dailyUsage('acc_u2', '2026-08-01', '2026-08-02');
    // Everything recorded by earlier tests was received before 2026-08-01 as well.
    const olderThanAugust = total - 2;
    expect(await fixture.store.pruneUsageEvents(new Date('2026-08-01T15:59:59.999Z'))).toBe(olderThanAugust);
    expect(await fixture.store.countUsageEvents()).toBe(2);
    expect(await fixture.store.pruneUsageEvents(new Date('2026-08-01T15:59:59.999Z'))).toBe(0);
    expect(byKeyAndDay(await fixture.store.dailyUsage('acc_u2', '2026-08-01', '2026-08-02'))).toEqual(byKeyAndDay(rollupBefore));
    expect(byKeyAndDay(rollupBefore).map((row) => row.requests)).toEqual([2, 1]);
  });
});
