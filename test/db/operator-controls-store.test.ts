import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { migrate } from '../../server/db/migrate';
import type { Store, UsageEventRow } from '../../server/db/types';
import { dialectsUnderTest, type TestDatabase } from './databases';

/** docs/operator-controls.md in the store, on SQLite and Postgres: ceilings, who set a key's settings, rotation, last use, the audit log. */
const T0 = new Date('2026-03-01T10:00:00.000Z');

function usageEvent(index: number, keyId: string, receivedAt: Date): UsageEventRow {
  return {
    eventId: `evt_oc_${index}`,
    requestId: `req_oc_${index}`,
    accountId: 'acct_oc',
    keyId,
    model: 'gpt-4o-mini',
    provider: 'openai',
    deployment: null,
    day: '2026-03-01',
    receivedAt,
    promptTokens: 1,
    completionTokens: 1,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    costFemtoUsd: 1n,
    estimated: false,
    stream: false,
    status: 200,
    errorCode: null,
    latencyMs: 1,
  };
}

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`Store, operator controls (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;
    let clock = T0.getTime();

    beforeAll(async () => {
      database = await create();
      await migrate(database.url);
      store = await createStore(database.url, { now: () => new Date(clock) });
      await store.createAccount({ id: 'acct_oc', name: 'OC', createdAt: T0 });
      await store.createApiKey({
        id: 'key_oc',
        accountId: 'acct_oc',
        name: 'k',
        keyHash: 'a'.repeat(64),
        hint: 'sk-...aaaa',
        rpm: 5,
        tpm: null,
        createdAt: T0,
        models: ['gpt-*'],
      });
    });

    afterAll(async () => {
      await store?.close();
      await database?.drop();
    });

    it('keys carry their account’s ceilings; changing them stamps the keys for the other instances', async () => {
      expect((await store.getApiKey('key_oc'))?.account).toEqual({ rpm: null, tpm: null, models: null, budget: null });
      clock = T0.getTime() + 60_000;
      const account = await store.updateAccount('acct_oc', { rpm: 10, models: ['gpt-4o', 'claude-*'] });
      expect(account).toMatchObject({ rpm: 10, tpm: null, models: ['gpt-4o', 'claude-*'] });
      const changed = await store.apiKeysChangedSince(new Date(clock));
      expect(changed.map((key) => key.id)).toEqual(['key_oc']);
      expect(changed[0]).toMatchObject({ models: ['gpt-*'], account: { rpm: 10, tpm: null, models: ['gpt-4o', 'claude-*'] } });
      // A rename alone leaves the keys alone.
      clock += 60_000;
      await store.updateAccount('acct_oc', { name: 'Renamed' });
      expect(await store.apiKeysChangedSince(new Date(clock))).toEqual([]);
      expect(await store.updateAccount('acct_missing', { rpm: 1 })).toBeNull();
    });

    it('stores spend budgets exactly on keys and accounts; a budget change stamps the keys', async () => {
      const budget = {
        amountFemtoUsd: 123_456_789_000_000_000_000n,
        period: 'week' as const,
        alertAt: [0.5, 0.8],
        setAt: 1_767_323_045_678,
      };
      clock += 60_000;
      await store.updateAccount('acct_oc', { budget });
      const changed = await store.apiKeysChangedSince(new Date(clock));
      expect(changed.map((key) => key.id)).toEqual(['key_oc']);
      expect(changed[0]?.account.budget).toEqual(budget);
      const keyBudget = { ...budget, amountFemtoUsd: 1n, period: 'total' as const, alertAt: [] };
      expect((await store.updateApiKey('key_oc', { budget: keyBudget }))?.budget).toEqual(keyBudget);
      expect((await store.getApiKey('key_oc'))?.budget).toEqual(keyBudget);
      await store.updateApiKey('key_oc', { budget: null });
      await store.updateAccount('acct_oc', { budget: null });
      expect(await store.getApiKey('key_oc')).toMatchObject({ budget: null, account: { budget: null } });
    });

    it('finds a key by its previous secret while it is stored, and by the new one', async () => {
      const rotated = await store.updateApiKey('key_oc', {
        keyHash: 'b'.repeat(64),
        hint: 'sk-...bbbb',
        previousKeyHash: 'a'.repeat(64),
        previousKeyExpiresAt: new Date(T0.getTime() + 3_600_000),
      });
      expect(rotated).toMatchObject({ keyHash: 'b'.repeat(64), previousKeyHash: 'a'.repeat(64), blockedBy: null, expiresAt: null });
      expect((await store.findApiKeyByHash('a'.repeat(64)))?.id).toBe('key_oc');
      expect((await store.findApiKeyByHash('b'.repeat(64)))?.id).toBe('key_oc');
      await store.updateApiKey('key_oc', {
        previousKeyHash: null,
        previousKeyExpiresAt: null,
        blocked: true,
        blockedBy: 'owner',
        expiresAt: T0,
      });
      expect(await store.findApiKeyByHash('a'.repeat(64))).toBeNull();
      expect(await store.getApiKey('key_oc')).toMatchObject({ blocked: true, blockedBy: 'owner', expiresAt: T0 });
    });

    it('keeps who set each key setting, written whole and read back', async () => {
      const setBy = { rpm: 'operator', tpm: null, models: 'owner', expiresAt: null, budget: null } as const;
      await store.createApiKey({
        id: 'key_set_by',
        accountId: 'acct_oc',
        name: 'set by',
        keyHash: 'e'.repeat(64),
        hint: 'sk-...eeee',
        rpm: 5,
        tpm: null,
        models: ['gpt-*'],
        createdAt: T0,
        setBy,
      });
      expect((await store.getApiKey('key_set_by'))?.setBy).toEqual(setBy);
      const changed = { ...setBy, models: 'operator', expiresAt: 'owner' } as const;
      expect((await store.updateApiKey('key_set_by', { expiresAt: T0, setBy: changed }))?.setBy).toEqual(changed);
      expect((await store.listApiKeys('acct_oc')).find((key) => key.id === 'key_set_by')?.setBy).toEqual(changed);
      // A patch without setBy leaves it as it is.
      expect((await store.updateApiKey('key_set_by', { name: 'renamed' }))?.setBy).toEqual(changed);
    });

    it('moves last use forward with the usage batches, never back', async () => {
      const later = new Date(T0.getTime() + 5_000);
      await store.recordUsage([usageEvent(1, 'key_oc', T0), usageEvent(2, 'key_oc', later)]);
      expect((await store.getApiKey('key_oc'))?.lastUsedAt).toEqual(later);
      await store.recordUsage([usageEvent(3, 'key_oc', T0)]);
      expect((await store.getApiKey('key_oc'))?.lastUsedAt).toEqual(later);
    });

    it('lists the audit log newest first, by account, a page at a time', async () => {
      for (let index = 0; index < 5; index++) {
        await store.appendAudit({
          id: `aud_${index}`,
          at: new Date(T0.getTime() + (index < 4 ? index : 3) * 1000),
          actor: index % 2 === 0 ? 'operator' : 'owner',
          accountId: index === 4 ? 'acct_other' : 'acct_oc',
          action: 'key.update',
          targetId: 'key_oc',
          before: '{"rpm":1}',
          after: '{"rpm":2}',
          requestId: index === 0 ? null : `req_${index}`,
        });
      }
      const all = await store.listAudit({ limit: 10 });
      expect(all.map((entry) => entry.id)).toEqual(['aud_4', 'aud_3', 'aud_2', 'aud_1', 'aud_0']);
      const first = await store.listAudit({ accountId: 'acct_oc', limit: 2 });
      expect(first.map((entry) => entry.id)).toEqual(['aud_3', 'aud_2']);
      const last = first[1]!;
      const second = await store.listAudit({ accountId: 'acct_oc', limit: 2, before: { at: last.at, id: last.id } });
      expect(second.map((entry) => entry.id)).toEqual(['aud_1', 'aud_0']);
      expect(second[1]).toMatchObject({ actor: 'operator', requestId: null, before: '{"rpm":1}' });
    });
  });
}
