import { describe, expect, it } from 'vitest';
import { apiKeyRefusal } from '../../server/keys/key-access';
import { KeyCache } from '../../server/keys/key-cache';
import { generateKeyText, hashKey, keyHint } from '../../server/keys/key-text';
import { FakeStore } from '../helpers/fake-store';

/** docs/operator-controls.md, rotation and expiry in the key cache: decided by the cached row and the clock. */
async function setup() {
  const store = new FakeStore();
  await store.createAccount({ id: 'acct_1', name: 'Acme', createdAt: new Date() });
  const oldKey = generateKeyText('sk-');
  await store.createApiKey({
    id: 'key_1',
    accountId: 'acct_1',
    name: 'k',
    keyHash: hashKey(oldKey),
    hint: keyHint(oldKey),
    rpm: null,
    tpm: null,
    createdAt: new Date(),
  });
  return { store, oldKey };
}

async function rotate(store: FakeStore, oldKey: string, graceEndsAt: Date | null) {
  const newKey = generateKeyText('sk-');
  const row = await store.updateApiKey('key_1', {
    keyHash: hashKey(newKey),
    hint: keyHint(newKey),
    previousKeyHash: graceEndsAt ? hashKey(oldKey) : null,
    previousKeyExpiresAt: graceEndsAt,
  });
  return { newKey, row: row! };
}

describe('KeyCache and rotation', () => {
  it('during the grace both secrets are the same key; after it the old one is refused', async () => {
    const { store, oldKey } = await setup();
    const cache = new KeyCache(store);
    await cache.findApiKey(oldKey);
    const graceEnds = new Date(Date.now() + 10_000);
    const { newKey, row } = await rotate(store, oldKey, graceEnds);
    await cache.apiKeyChanged(row);
    const old = await cache.findApiKey(oldKey);
    const current = await cache.findApiKey(newKey);
    expect(old?.id).toBe('key_1');
    expect(current?.id).toBe('key_1');
    expect(apiKeyRefusal(old!, Date.now())).toBeNull();
    expect(apiKeyRefusal(current!, graceEnds.getTime() + 1)).toBeNull();
    expect(apiKeyRefusal(old!, graceEnds.getTime())?.code).toBe('invalid_api_key');
  });

  it('with no grace the old secret is gone from the cache at once', async () => {
    const { store, oldKey } = await setup();
    const cache = new KeyCache(store);
    await cache.findApiKey(oldKey);
    const { row } = await rotate(store, oldKey, null);
    await cache.apiKeyChanged(row);
    expect(cache.peekApiKey(hashKey(oldKey))).toBeUndefined();
    expect(await cache.findApiKey(oldKey)).toBeNull();
  });

  it('a lookup that read the row before a rotation applied here does not bring the old secret back', async () => {
    const { store, oldKey } = await setup();
    // The lookup reads the pre-rotation row, the rotation is applied meanwhile, then the read ends.
    const before = await store.findApiKeyByHash(hashKey(oldKey));
    let release: () => void = () => undefined;
    const slow = Object.assign(Object.create(store) as FakeStore, {
      findApiKeyByHash: () => new Promise((resolve) => (release = () => resolve(before))),
    });
    const slowCache = new KeyCache(slow);
    const lookup = slowCache.findApiKey(oldKey);
    const { row } = await rotate(store, oldKey, null);
    slowCache.putApiKey(row);
    release();
    expect(await lookup).toBeNull();
  });

  it('expiry: 401 key_expired from the instant, revocation and blocks decided as before', async () => {
    const { store, oldKey } = await setup();
    const expiresAt = new Date(Date.now() + 60_000);
    const row = await store.updateApiKey('key_1', { expiresAt });
    const cache = new KeyCache(store);
    await cache.apiKeyChanged(row!);
    const key = (await cache.findApiKey(oldKey))!;
    expect(apiKeyRefusal(key, expiresAt.getTime() - 1)).toBeNull();
    expect(apiKeyRefusal(key, expiresAt.getTime())).toMatchObject({ status: 401, code: 'key_expired' });
    expect(apiKeyRefusal({ ...key, blocked: true }, 0)).toMatchObject({ status: 403, code: 'key_blocked' });
    expect(apiKeyRefusal({ ...key, status: 'REVOKED' }, expiresAt.getTime())).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});
