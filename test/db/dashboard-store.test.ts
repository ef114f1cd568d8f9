import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../server/db/create-store';
import { migrate } from '../../server/db/migrate';
import type { Store } from '../../server/db/types';
import { dialectsUnderTest, type TestDatabase } from './databases';

/** The dashboard's sessions and one-time login tokens in the Store, on both databases. */
const T0 = new Date('2026-05-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

for (const { dialect, available, create } of await dialectsUnderTest()) {
  describe.skipIf(!available)(`Store dashboard credentials (${dialect})`, () => {
    let database: TestDatabase;
    let store: Store;

    beforeAll(async () => {
      database = await create();
      await migrate(database.url);
      store = await createStore(database.url);
      await store.createAccount({ id: 'acct_dash', name: 'Dash', createdAt: T0 });
    });

    afterAll(async () => {
      await store?.close();
      await database?.drop();
    });

    it('creates, finds and deletes sessions by token hash', async () => {
      const owner = { id: 'sess_owner', tokenHash: 'a'.repeat(64), accountId: 'acct_dash', createdAt: T0, expiresAt: at(60_000) };
      const operator = { id: 'sess_operator', tokenHash: 'b'.repeat(64), accountId: null, createdAt: T0, expiresAt: at(60_000) };
      expect(await store.createDashboardSession(owner)).toEqual(owner);
      expect(await store.createDashboardSession(operator)).toEqual(operator);
      expect(await store.findDashboardSessionByHash(owner.tokenHash)).toEqual(owner);
      expect(await store.findDashboardSessionByHash(operator.tokenHash)).toEqual(operator);
      expect(await store.findDashboardSessionByHash('0'.repeat(64))).toBeNull();
      await store.deleteDashboardSession(owner.tokenHash);
      await store.deleteDashboardSession(owner.tokenHash);
      expect(await store.findDashboardSessionByHash(owner.tokenHash)).toBeNull();
    });

    it('consumes a login token once, and never after it expired', async () => {
      const token = { id: 'login_1', tokenHash: 'c'.repeat(64), accountId: 'acct_dash', createdAt: T0, expiresAt: at(1_000) };
      expect(await store.createLoginToken(token)).toEqual({ ...token, usedAt: null });
      const racing = await Promise.all([
        store.consumeLoginToken(token.tokenHash, at(10)),
        store.consumeLoginToken(token.tokenHash, at(10)),
      ]);
      expect(racing.filter((row) => row !== null)).toEqual([{ ...token, usedAt: at(10) }]);
      expect(await store.consumeLoginToken(token.tokenHash, at(20))).toBeNull();

      const late = { ...token, id: 'login_2', tokenHash: 'd'.repeat(64) };
      await store.createLoginToken(late);
      expect(await store.consumeLoginToken(late.tokenHash, at(1_000))).toBeNull();
      expect(await store.consumeLoginToken('e'.repeat(64), at(0))).toBeNull();
    });

    it('prunes what expired before a time, and leaves the rest', async () => {
      await store.createDashboardSession({
        id: 'sess_old',
        tokenHash: '1'.repeat(64),
        accountId: null,
        createdAt: T0,
        expiresAt: at(5_000),
      });
      await store.createDashboardSession({
        id: 'sess_new',
        tokenHash: '2'.repeat(64),
        accountId: null,
        createdAt: T0,
        expiresAt: at(500_000),
      });
      await store.createLoginToken({
        id: 'login_old',
        tokenHash: '3'.repeat(64),
        accountId: 'acct_dash',
        createdAt: T0,
        expiresAt: at(5_000),
      });
      // Everything above expiring before at(100_000): sess_old, login_old, and the earlier tests' login_1/login_2 and sess_operator.
      expect(await store.pruneDashboardCredentials(at(100_000))).toBe(5);
      expect(await store.findDashboardSessionByHash('1'.repeat(64))).toBeNull();
      expect(await store.findDashboardSessionByHash('2'.repeat(64))).not.toBeNull();
    });
  });
}
