import { describe, expect, it } from 'vitest';
import { dialectsUnderTest } from './databases';
import { T0, useMigratedStore } from './store-fixtures';

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`Store (${dialect})`, () => {
    const fixture = useMigratedStore(create);

    it('reports its kind and answers ping', async () => {
      expect(fixture.store.kind).toBe(dialect);
      await expect(fixture.store.ping()).resolves.toBeUndefined();
    });

    it('creates, lists and gets accounts', async () => {
      const second = await fixture.store.createAccount({ id: 'acc_b', name: 'Beta', createdAt: new Date('2026-01-02T00:00:00.001Z') });
      const first = await fixture.store.createAccount({ id: 'acc_a', name: 'Alpha', createdAt: new Date('2026-01-01T00:00:00.999Z') });
      expect(first).toEqual({
        id: 'acc_a',
        name: 'Alpha',
        createdAt: new Date('2026-01-01T00:00:00.999Z'),
        rpm: null,
        tpm: null,
        models: null,
        budget: null,
      });
      expect(await fixture.store.getAccount('acc_b')).toEqual(second);
      expect(await fixture.store.getAccount('acc_missing')).toBeNull();
      const listed = await fixture.store.listAccounts();
      expect(listed.map((account) => account.id)).toEqual(['acc_a', 'acc_b']);
      await expect(fixture.store.createAccount({ id: 'acc_a', name: 'Again', createdAt: T0 })).rejects.toThrow();
    });

    it('creates API keys and finds them by id and by hash', async () => {
      await fixture.store.createAccount({ id: 'acc_keys', name: 'Keys', createdAt: T0 });
      const key = await fixture.store.createApiKey({
        id: 'key_1',
        accountId: 'acc_keys',
        name: 'prod',
        keyHash: 'a'.repeat(64),
        hint: 'sk-...9fQz',
        rpm: 60,
        tpm: null,
        createdAt: new Date('2026-02-01T08:15:30.123Z'),
      });
      expect(key).toEqual({
        id: 'key_1',
        accountId: 'acc_keys',
        name: 'prod',
        keyHash: 'a'.repeat(64),
        hint: 'sk-...9fQz',
        status: 'ACTIVE',
        blocked: false,
        rpm: 60,
        tpm: null,
        createdAt: new Date('2026-02-01T08:15:30.123Z'),
        revokedAt: null,
        updatedAt: T0,
        models: null,
        expiresAt: null,
        blockedBy: null,
        lastUsedAt: null,
        previousKeyHash: null,
        previousKeyExpiresAt: null,
        budget: null,
        setBy: { rpm: null, tpm: null, models: null, expiresAt: null, budget: null },
        account: { rpm: null, tpm: null, models: null, budget: null },
      });
      expect(await fixture.store.getApiKey('key_1')).toEqual(key);
      expect(await fixture.store.findApiKeyByHash('a'.repeat(64))).toEqual(key);
      expect(await fixture.store.findApiKeyByHash('b'.repeat(64))).toBeNull();
      expect(await fixture.store.getApiKey('key_missing')).toBeNull();
    });

    it('refuses a duplicate key hash and a key of an unknown account', async () => {
      await fixture.store.createAccount({ id: 'acc_dup', name: 'Dup', createdAt: T0 });
      const base = { accountId: 'acc_dup', name: 'k', hint: 'sk-...0000', rpm: null, tpm: null, createdAt: T0 };
      await fixture.store.createApiKey({ ...base, id: 'key_dup_1', keyHash: 'c'.repeat(64) });
      await expect(fixture.store.createApiKey({ ...base, id: 'key_dup_2', keyHash: 'c'.repeat(64) })).rejects.toThrow();
      await expect(
        fixture.store.createApiKey({ ...base, id: 'key_orphan', accountId: 'acc_nobody', keyHash: 'd'.repeat(64) }),
      ).rejects.toThrow();
    });

    it('lists an account’s keys by createdAt, then name', async () => {
      await fixture.store.createAccount({ id: 'acc_order', name: 'Order', createdAt: T0 });
      await fixture.store.createAccount({ id: 'acc_other', name: 'Other', createdAt: T0 });
      const make = (id: string, name: string, createdAt: string, accountId = 'acc_order') =>
        fixture.store.createApiKey({
          id,
          accountId,
          name,
          keyHash: `hash_${id}`,
          hint: 'sk-...x',
          rpm: null,
          tpm: null,
          createdAt: new Date(createdAt),
        });
      await make('key_o1', 'zeta', '2026-02-02T00:00:00.000Z');
      await make('key_o2', 'beta', '2026-02-01T00:00:00.500Z');
      await make('key_o3', 'alpha', '2026-02-01T00:00:00.500Z');
      await make('key_o4', 'first', '2026-01-31T23:59:59.999Z');
      await make('key_o5', 'elsewhere', '2026-01-01T00:00:00.000Z', 'acc_other');
      const listed = await fixture.store.listApiKeys('acc_order');
      expect(listed.map((key) => key.id)).toEqual(['key_o4', 'key_o3', 'key_o2', 'key_o1']);
      expect(await fixture.store.listApiKeys('acc_nobody')).toEqual([]);
    });

    it('updates keys, stamps updatedAt, and returns null for an unknown id', async () => {
      await fixture.store.createAccount({ id: 'acc_upd', name: 'Upd', createdAt: T0 });
      await fixture.store.createApiKey({
        id: 'key_u',
        accountId: 'acc_upd',
        name: 'old',
        keyHash: 'hash_u',
        hint: 'sk-...u',
        rpm: null,
        tpm: null,
        createdAt: T0,
      });

      const t1 = fixture.clock.advance(1_000);
      const blocked = await fixture.store.updateApiKey('key_u', { blocked: true, name: 'new', rpm: 10, tpm: 5_000 });
      expect(blocked).toMatchObject({ blocked: true, name: 'new', rpm: 10, tpm: 5_000, status: 'ACTIVE', updatedAt: t1 });

      const t2 = fixture.clock.advance(1_000);
      const unlimited = await fixture.store.updateApiKey('key_u', { rpm: null, blocked: false });
      expect(unlimited).toMatchObject({ rpm: null, tpm: 5_000, blocked: false, name: 'new', updatedAt: t2 });

      const t3 = fixture.clock.advance(1_000);
      const revoked = await fixture.store.updateApiKey('key_u', { status: 'REVOKED', revokedAt: t3 });
      expect(revoked).toMatchObject({ status: 'REVOKED', revokedAt: t3, updatedAt: t3, createdAt: T0 });
      expect(await fixture.store.getApiKey('key_u')).toEqual(revoked);

      expect(await fixture.store.updateApiKey('key_missing', { blocked: true })).toBeNull();
    });

    it('finds keys changed at or after a time, to the millisecond', async () => {
      await fixture.store.createAccount({ id: 'acc_chg', name: 'Chg', createdAt: T0 });
      const t1 = new Date('2030-01-01T00:00:00.000Z');
      const t2 = new Date('2030-01-01T00:00:00.001Z');
      const t3 = new Date('2030-01-01T00:00:09.999Z');
      const t4 = new Date('2030-01-01T00:00:10.000Z');
      const createKeyAt = async (n: number, at: Date) => {
        fixture.clock.set(at);
        await fixture.store.createApiKey({
          id: `key_c${n}`,
          accountId: 'acc_chg',
          name: `c${n}`,
          keyHash: `hash_c${n}`,
          hint: `sk-...${n}`,
          rpm: null,
          tpm: null,
          createdAt: at,
        });
      };
      await createKeyAt(1, t1);
      await createKeyAt(2, t2);
      fixture.clock.set(t4);
      await fixture.store.updateApiKey('key_c1', { blocked: true });

      const ids = async (since: Date) => (await fixture.store.apiKeysChangedSince(since)).map((key) => key.id);
      expect(await ids(t1)).toEqual(['key_c2', 'key_c1']);
      expect(await ids(t2)).toEqual(['key_c2', 'key_c1']);
      expect(await ids(t3)).toEqual(['key_c1']);
      expect(await ids(t4)).toEqual(['key_c1']);
      expect(await ids(new Date(t4.getTime() + 1))).toEqual([]);
      expect((await fixture.store.apiKeysChangedSince(t4))[0]).toMatchObject({ blocked: true, updatedAt: t4 });
    });

    it('replaces an account’s usage key: the old hash is gone, the change is visible', async () => {
      await fixture.store.createAccount({ id: 'acc_uk', name: 'Uk', createdAt: T0 });
      expect(await fixture.store.getUsageKeyByAccount('acc_uk')).toBeNull();

      const first = await fixture.store.setUsageKey({
        id: 'uk_1',
        accountId: 'acc_uk',
        keyHash: 'uhash_1',
        hint: 'uk-...1111',
        createdAt: T0,
      });
      expect(first).toEqual({ id: 'uk_1', accountId: 'acc_uk', keyHash: 'uhash_1', hint: 'uk-...1111', createdAt: T0, updatedAt: T0 });
      expect(await fixture.store.findUsageKeyByHash('uhash_1')).toEqual(first);

      const t1 = fixture.clock.advance(60_000);
      const second = await fixture.store.setUsageKey({
        id: 'uk_2',
        accountId: 'acc_uk',
        keyHash: 'uhash_2',
        hint: 'uk-...2222',
        createdAt: t1,
      });
      expect(second).toEqual({ id: 'uk_2', accountId: 'acc_uk', keyHash: 'uhash_2', hint: 'uk-...2222', createdAt: t1, updatedAt: t1 });
      expect(await fixture.store.findUsageKeyByHash('uhash_1')).toBeNull();
      expect(await fixture.store.findUsageKeyByHash('uhash_2')).toEqual(second);
      expect(await fixture.store.getUsageKeyByAccount('acc_uk')).toEqual(second);
      expect((await fixture.store.usageKeysChangedSince(t1)).map((key) => key.id)).toEqual(['uk_2']);
      expect(await fixture.store.usageKeysChangedSince(new Date(t1.getTime() + 1))).toEqual([]);

      // Replacing again with the same id also works (the id is the caller's choice).
      const third = await fixture.store.setUsageKey({
        id: 'uk_2',
        accountId: 'acc_uk',
        keyHash: 'uhash_3',
        hint: 'uk-...3333',
        createdAt: t1,
      });
      expect(third.keyHash).toBe('uhash_3');
      expect(await fixture.store.findUsageKeyByHash('uhash_2')).toBeNull();
    });
  });
}
