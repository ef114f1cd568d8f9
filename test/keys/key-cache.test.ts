import { describe, expect, it } from 'vitest';
import type { ApiKeyRow } from '../../server/db/types';
import { KeyCache } from '../../server/keys/key-cache';
import { decodeKeyEvent, encodeKeyEvent, type KeyChangeEvent } from '../../server/keys/key-events';
import { generateKeyText, hashKey, keyHint } from '../../server/keys/key-text';
import { FakeStore } from '../helpers/fake-store';

/**
 * The key cache's invalidation (docs/keys-and-accounts.md: a change reaches every instance within 1 s):
 * changes made here are announced, announcements from elsewhere reload the key, and a
 * database read that started before a change never undoes it.
 */
async function storeWithKey(): Promise<{ store: FakeStore; key: string; row: ApiKeyRow }> {
  const store = new FakeStore();
  await store.createAccount({ id: 'acct_1', name: 'Acme', createdAt: new Date() });
  const key = generateKeyText('sk-');
  const row = await store.createApiKey({
    id: 'key_1',
    accountId: 'acct_1',
    name: 'k',
    keyHash: hashKey(key),
    hint: keyHint(key),
    rpm: null,
    tpm: null,
    createdAt: new Date(),
  });
  return { store, key, row };
}

describe('KeyCache invalidation', () => {
  it('announces a change made through this instance, after applying it locally', async () => {
    const { store, key } = await storeWithKey();
    const announced: KeyChangeEvent[] = [];
    const cache = new KeyCache(store, { broadcast: async (event) => void announced.push(event) });
    expect((await cache.findApiKey(key))?.status).toBe('ACTIVE');
    const revoked = await store.updateApiKey('key_1', { status: 'REVOKED', revokedAt: new Date() });
    await cache.apiKeyChanged(revoked!);
    expect(cache.peekApiKey(hashKey(key))?.status).toBe('REVOKED');
    expect(announced).toEqual([{ kind: 'api-key', id: 'key_1' }]);
  });

  it('a failing announcement does not fail the change (the others poll)', async () => {
    const { store, row } = await storeWithKey();
    const errors: unknown[] = [];
    const cache = new KeyCache(store, {
      broadcast: async () => Promise.reject(new Error('redis down')),
      onError: (error) => errors.push(error),
    });
    await expect(cache.apiKeyChanged({ ...row, blocked: true })).resolves.toMatchObject({ blocked: true });
    expect(errors).toHaveLength(1);
  });

  it('reloads a cached key when another instance announces a change; ignores keys it never saw', async () => {
    const { store, key } = await storeWithKey();
    const cache = new KeyCache(store);
    await cache.findApiKey(key);
    await store.updateApiKey('key_1', { blocked: true });
    await cache.reload({ kind: 'api-key', id: 'key_1' });
    expect(cache.peekApiKey(hashKey(key))?.blocked).toBe(true);

    let reads = 0;
    const counting = Object.assign(Object.create(store) as FakeStore, { getApiKey: async (id: string) => (reads++, store.getApiKey(id)) });
    await new KeyCache(counting).reload({ kind: 'api-key', id: 'key_1' });
    expect(reads).toBe(0);
  });

  it('a poll that read the row before a change committed does not undo it', async () => {
    const { store, key, row } = await storeWithKey();
    const cache = new KeyCache(store);
    await cache.findApiKey(key);
    // The poll starts (reads the unblocked row), the block lands meanwhile, then the poll ends.
    let releasePoll: () => void = () => undefined;
    const pollGate = new Promise<void>((resolve) => (releasePoll = resolve));
    const slow = Object.assign(Object.create(store) as FakeStore, {
      apiKeysChangedSince: async () => {
        await pollGate;
        return [row];
      },
    });
    const slowCache = new KeyCache(slow);
    await slowCache.findApiKey(key);
    const poll = slowCache.refresh();
    const blocked = await store.updateApiKey('key_1', { blocked: true });
    await slowCache.apiKeyChanged(blocked!);
    releasePoll();
    await poll;
    expect(slowCache.peekApiKey(hashKey(key))?.blocked).toBe(true);
    // The next poll, which starts after the change, applies what it reads.
    await store.updateApiKey('key_1', { blocked: false });
    await cache.refresh();
    expect(cache.peekApiKey(hashKey(key))?.blocked).toBe(false);
    await store.updateApiKey('key_1', { blocked: true });
    await cache.refresh();
    expect(cache.peekApiKey(hashKey(key))?.blocked).toBe(true);
  });

  it('REVOKED is final in the cache too: no read brings a revoked key back', async () => {
    const { store, key, row } = await storeWithKey();
    const cache = new KeyCache(store);
    await cache.findApiKey(key);
    await cache.apiKeyChanged({ ...row, status: 'REVOKED', revokedAt: new Date() });
    cache.putApiKey(row);
    expect(cache.peekApiKey(hashKey(key))?.status).toBe('REVOKED');
  });

  it('a rotated usage key is reloaded by account, and the old one stops working', async () => {
    const store = new FakeStore();
    await store.createAccount({ id: 'acct_1', name: 'Acme', createdAt: new Date() });
    const first = generateKeyText('uk-');
    await store.setUsageKey({ id: 'uk_1', accountId: 'acct_1', keyHash: hashKey(first), hint: keyHint(first), createdAt: new Date() });
    const cache = new KeyCache(store);
    expect(await cache.findUsageKey(first)).not.toBeNull();
    const second = generateKeyText('uk-');
    await store.setUsageKey({ id: 'uk_2', accountId: 'acct_1', keyHash: hashKey(second), hint: keyHint(second), createdAt: new Date() });
    await cache.reload({ kind: 'usage-key', accountId: 'acct_1' });
    expect(await cache.findUsageKey(first)).toBeNull();
    expect(await cache.findUsageKey(second)).toMatchObject({ id: 'uk_2' });
  });
});

describe('key-change messages', () => {
  it('round-trip, and anything else on the channel is ignored', () => {
    const events: KeyChangeEvent[] = [
      { kind: 'api-key', id: 'key_1' },
      { kind: 'usage-key', accountId: 'acct_1' },
    ];
    for (const event of events) expect(decodeKeyEvent(encodeKeyEvent(event))).toEqual(event);
    for (const junk of [
      '',
      'null',
      '{',
      '[]',
      '{"kind":"api-key"}',
      '{"kind":"api-key","id":5}',
      '{"kind":"other","id":"x"}',
      `{"kind":"api-key","id":"${'x'.repeat(500)}"}`,
    ]) {
      expect(decodeKeyEvent(junk)).toBeNull();
    }
  });
});
