// Shared by the Store tests: test/db/store.test.ts (accounts, keys), test/db/store-usage.test.ts (usage, rollups)
// and test/db/store-usage-writes.test.ts (concurrent and failing usage writes).
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { migrate } from '../../server/db/migrate';
import type { Store, UsageDailyRow, UsageEventRow } from '../../server/db/types';
import { dialectsUnderTest, type TestDatabase } from './databases';

export const T0 = new Date('2026-03-01T10:00:00.000Z');

/** A clock the test moves by hand; the store stamps `updatedAt` with it. */
export function manualClock() {
  let current = T0.getTime();
  return {
    now: () => new Date(current),
    set: (date: Date) => {
      current = date.getTime();
    },
    advance: (milliseconds: number) => {
      current += milliseconds;
      return new Date(current);
    },
  };
}

let eventCounter = 0;
export function usageEvent(overrides: Partial<UsageEventRow> & Pick<UsageEventRow, 'accountId' | 'keyId' | 'day'>): UsageEventRow {
  eventCounter += 1;
  return {
    eventId: `evt_${eventCounter}`,
    requestId: `req_${eventCounter}`,
    model: 'gpt-4o-mini',
    provider: 'openai',
    deployment: null,
    receivedAt: new Date(`${overrides.day}T04:00:00.000Z`),
    promptTokens: 100,
    completionTokens: 20,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    costFemtoUsd: 27_000_000_000n,
    estimated: false,
    stream: false,
    status: 200,
    errorCode: null,
    latencyMs: 321,
    ...overrides,
  };
}

/** dailyUsage promises no order; the tests compare by key, then day. */
export function byKeyAndDay(rows: UsageDailyRow[]): UsageDailyRow[] {
  return [...rows].sort((a, b) => (a.keyId === b.keyId ? (a.day < b.day ? -1 : 1) : a.keyId < b.keyId ? -1 : 1));
}

/**
 * A migrated store on a fresh database for the enclosing describe, dropped after it, its clock set
 * back to T0 before each test. Read `store` and `database` inside tests (they exist from beforeAll on).
 */
/** A migrated store on a fresh database, with the manual clock it reads. */
export type StoreFixture = ReturnType<typeof useMigratedStore>;

export function useMigratedStore(create: () => Promise<TestDatabase>) {
  const clock = manualClock();
  const fixture = { clock, store: undefined as unknown as Store, database: undefined as unknown as TestDatabase };
  beforeAll(async () => {
    fixture.database = await create();
    await migrate(fixture.database.url);
    fixture.store = await createStore(fixture.database.url, { now: clock.now });
  });
  afterAll(async () => {
    await fixture.store?.close();
    await fixture.database?.drop();
  });
  beforeEach(() => clock.set(T0));
  return fixture;
}

/**
 * The store's usage tests, `tests`, on every database under test (a migrated store each) with
 * the accounts acc_u1 and acc_u2 that they record to.
 */
export async function describeStoreUsage(tests: (fixture: StoreFixture, dialect: string) => void): Promise<void> {
  for (const { dialect, available, create } of await dialectsUnderTest()) {
    describe.skipIf(!available)(`Store (${dialect})`, () => {
      const fixture = useMigratedStore(create);
      describe('usage', () => {
        beforeAll(async () => {
          await fixture.store.createAccount({ id: 'acc_u1', name: 'U1', createdAt: T0 });
          await fixture.store.createAccount({ id: 'acc_u2', name: 'U2', createdAt: T0 });
        });
        tests(fixture, dialect);
      });
    });
  }
}
