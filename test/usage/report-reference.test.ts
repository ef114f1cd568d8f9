import { describe, expect, it } from 'vitest';
import type { ApiKeyRow, Store, UsageDailyRow, UsageEventRow } from '../../server/db/types';
import { createUsageReporter } from '../../server/usage/usage-report';
import { seededRandom } from '../../bench/usage-bench-data';
import { dialectsUnderTest } from '../db/databases';
import { useMigratedStore } from '../db/store-fixtures';

/**
 * The usage report against a straightforward computation of it (docs/usage-report.md, read
 * literally: every key's rows from dailyUsage, exact bigint sums, each day rounded half up once,
 * sorted with Array.sort), on a seeded varied account: many keys, ties in created_at and name,
 * revoked keys with and without usage, days at both ends of a 92-day range and outside it,
 * spends of zero, under 1e-6 USD, on either side of half a nano-dollar and beyond 2^53
 * nano-dollars, another account's rows between. The JSON must be the same to the character.
 */
const ACCOUNT = 'acc_reference';
const START = '2026-03-01';
const END = '2026-05-31';
const NOW = Date.parse('2026-05-31T12:00:00.000Z');
const DAY_MS = 86_400_000;
const MAX_EVENT_FEMTO = 9_223_372_036_854_775_807n;

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`usage report against a straightforward computation (${dialect})`, () => {
    const fixture = useMigratedStore(create);

    it('gives the same JSON, plain and admin, for a varied account', async () => {
      await seedVariedAccount(fixture.store);
      const report = createUsageReporter({ store: fixture.store, now: () => NOW });
      const expected = await referenceReport(fixture.store);
      expect(expected.keys.length).toBeGreaterThan(30);
      expect(JSON.stringify(await report(ACCOUNT, { start: START, end: END }))).toBe(JSON.stringify(expected));

      // The admin report's entries are the same, with the breakdown and models beside.
      const detailed = await report(ACCOUNT, { start: START, end: END }, { detail: true });
      const withoutBreakdown = detailed.keys.map((entry) => ({
        name: entry.name,
        hint: entry.hint,
        status: entry.status,
        blocked: entry.blocked,
        created_at: entry.created_at,
        total: pick(entry.total),
        daily: entry.daily.map((day) => ({ date: day.date, ...pick(day) })),
      }));
      expect(JSON.stringify(withoutBreakdown)).toBe(JSON.stringify(expected.keys));
    });
  });
}

function pick(counts: { spend_usd: number; requests: number; prompt_tokens: number; completion_tokens: number }) {
  return {
    spend_usd: counts.spend_usd,
    requests: counts.requests,
    prompt_tokens: counts.prompt_tokens,
    completion_tokens: counts.completion_tokens,
  };
}

async function referenceReport(store: Store) {
  const keys: ApiKeyRow[] = await store.listApiKeys(ACCOUNT);
  const rows: UsageDailyRow[] = await store.dailyUsage(ACCOUNT, START, END);
  const roundedNano = (row: UsageDailyRow) =>
    (BigInt(row.costNanoUsd) * 1_000_000n + BigInt(row.costFemtoRemainder) + 500_000n) / 1_000_000n;
  const usd = (nano: bigint) => Number(`${nano / 1_000_000_000n}.${String(nano % 1_000_000_000n).padStart(9, '0')}`);
  const listed = keys
    .filter((key) => key.status === 'ACTIVE' || rows.some((row) => row.keyId === key.id))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    object: 'usage.keys',
    start: START,
    end: END,
    timezone: 'Asia/Shanghai',
    keys: listed.map((key) => {
      const days = rows.filter((row) => row.keyId === key.id).sort((a, b) => (a.day < b.day ? -1 : 1));
      const sum = (read: (row: UsageDailyRow) => number) => days.reduce((total, row) => total + read(row), 0);
      return {
        name: key.name,
        hint: key.hint,
        status: key.status,
        blocked: key.blocked,
        created_at: key.createdAt.toISOString(),
        total: {
          spend_usd: usd(days.reduce((total, row) => total + roundedNano(row), 0n)),
          requests: sum((row) => row.requests),
          prompt_tokens: sum((row) => row.promptTokens),
          completion_tokens: sum((row) => row.completionTokens),
        },
        daily: days.map((row) => ({
          date: row.day,
          spend_usd: usd(roundedNano(row)),
          requests: row.requests,
          prompt_tokens: row.promptTokens,
          completion_tokens: row.completionTokens,
        })),
      };
    }),
  };
}

async function seedVariedAccount(store: Store): Promise<void> {
  const random = seededRandom(36);
  const integer = (below: number) => Math.floor(random() * below);
  const created = Date.parse('2026-01-01T00:00:00.000Z');
  await store.createAccount({ id: ACCOUNT, name: 'reference', createdAt: new Date(created) });
  await store.createAccount({ id: 'acc_reference_other', name: 'other', createdAt: new Date(created) });
  const names = ['alpha', 'beta', 'Beta', 'zeta', 'ü-key', '\u{1F600} key', 'key 10', 'key 9'];
  const keyIds: string[] = [];
  for (let index = 0; index < 48; index += 1) {
    const id = `key_ref_${index}`;
    await store.createApiKey({
      id,
      accountId: ACCOUNT,
      name: names[integer(names.length)] as string,
      keyHash: `reference-hash-${index}`,
      hint: `sk-...${String(index).padStart(4, '0')}`,
      rpm: null,
      tpm: null,
      // Three instants only: many keys tie on created_at, some on the name too.
      createdAt: new Date(created + integer(3) * 1000),
    });
    keyIds.push(id);
  }
  await store.createApiKey({
    id: 'key_ref_other',
    accountId: 'acc_reference_other',
    name: 'other',
    keyHash: 'reference-hash-other',
    hint: 'sk-...9999',
    rpm: null,
    tpm: null,
    createdAt: new Date(created),
  });
  for (const [index, id] of keyIds.entries()) {
    if (index % 7 === 3) await store.updateApiKey(id, { status: 'REVOKED', revokedAt: new Date(created + DAY_MS) });
    if (index % 11 === 5) await store.updateApiKey(id, { blocked: true, blockedBy: 'operator' });
  }

  const firstDay = Date.parse(`${START}T00:00:00.000Z`);
  const costs = [0n, 1n, 499_999n, 500_000n, 1_499_999n, 4_200_000n, 123_456_789_012n, 987_654_321_000_000n, 1_000_000_000_000_000n];
  const events: UsageEventRow[] = [];
  const event = (keyId: string, accountId: string, dayIndex: number, costFemtoUsd: bigint): UsageEventRow => {
    const day = new Date(firstDay + dayIndex * DAY_MS).toISOString().slice(0, 10);
    return {
      eventId: `evt_ref_${events.length}`,
      requestId: `req_ref_${events.length}`,
      accountId,
      keyId,
      model: 'gpt-4o-mini',
      provider: 'openai',
      deployment: null,
      day,
      receivedAt: new Date(`${day}T04:00:00.000Z`),
      promptTokens: integer(5_000),
      completionTokens: integer(2_000),
      cachedTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      costFemtoUsd,
      estimated: false,
      stream: false,
      status: 200,
      errorCode: null,
      latencyMs: 100,
    };
  };
  for (const [index, keyId] of keyIds.entries()) {
    // Every fifth key idle; the others on some days of the range, and one day before or after it.
    if (index % 5 === 0) continue;
    for (let count = integer(40); count > 0; count -= 1) {
      events.push(event(keyId, ACCOUNT, integer(92), costs[integer(costs.length)] as bigint));
    }
    events.push(event(keyId, ACCOUNT, random() < 0.5 ? -1 : 92, 1_000_000_000n));
  }
  // The range's first and last days, and a day beyond 2^53 nano-dollars.
  events.push(event('key_ref_1', ACCOUNT, 0, 2_500_000n), event('key_ref_1', ACCOUNT, 91, 7_500_000n));
  for (let count = 0; count < 1_200; count += 1) events.push(event('key_ref_2', ACCOUNT, 45, MAX_EVENT_FEMTO));
  for (let count = 0; count < 50; count += 1) events.push(event('key_ref_other', 'acc_reference_other', integer(92), 1_000_000_000n));
  for (let start = 0; start < events.length; start += 500) await store.recordUsage(events.slice(start, start + 500));
}
