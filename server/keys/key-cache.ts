import type { ApiKeyRow, Budget, Store, UsageKeyRow } from '../db/types';
import type { KeyChangeEvent } from './key-events';
import { hashKey } from './key-text';

/** What the request path needs to know about an `sk-` key. */
export interface CachedApiKey {
  id: string;
  accountId: string;
  name: string;
  status: 'ACTIVE' | 'REVOKED';
  blocked: boolean;
  rpm: number | null;
  tpm: number | null;
  /** The key's model allow-list and its account's (docs/operator-controls.md); null = every model. */
  models: string[] | null;
  accountModels: string[] | null;
  /** The account's ceilings; null = none. */
  accountRpm: number | null;
  accountTpm: number | null;
  /** The key's and its account's spend budgets (docs/operator-controls.md); null = none. */
  budget: Budget | null;
  accountBudget: Budget | null;
  /** Epoch ms after which the key is refused (401 key_expired); null = never. */
  expiresAt: number | null;
  /** Set on the entry of a rotated-out secret: epoch ms when it stops working. */
  graceEndsAt: number | null;
}

export interface CachedUsageKey {
  id: string;
  accountId: string;
}

export interface KeyCacheOptions {
  /** How often changes made by other processes (CLI, other instances) are picked up. */
  refreshIntervalMs?: number;
  /** How long an unknown hash is remembered as unknown (a flood of bad keys must not hit the DB). */
  negativeTtlMs?: number;
  /** Upper bound of remembered unknown hashes. */
  maxNegativeEntries?: number;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** Tells the other instances about a change made through this one (Redis pub/sub). */
  broadcast?: (event: KeyChangeEvent) => Promise<void>;
}

/**
 * The in-memory key cache: a known key is authenticated without any database read
 * (docs/architecture.md: the hot path awaits no database call). A miss falls through to the database
 * once, so a key created by the CLI works at once (docs/cli.md). Changes made elsewhere
 * (revoke, block, limits, usage-key rotation) arrive as key-change messages (`reload`,
 * milliseconds) and, as the backstop when Redis is absent or down, by polling `updatedAt`,
 * well within the 1 s of docs/keys-and-accounts.md; changes made through this instance apply at once.
 */
export class KeyCache {
  private readonly apiKeys = new Map<string, CachedApiKey>();
  /** A key's hashes in `apiKeys`: its secret's and, during a rotation's grace, the previous one's. */
  private readonly apiKeyHashById = new Map<string, string[]>();
  private readonly usageKeys = new Map<string, CachedUsageKey>();
  private readonly usageKeyHashByAccount = new Map<string, string>();
  private readonly unknown = new Map<string, number>();
  /**
   * Per key, the sequence number of the database read its cached row came from. A read that
   * started earlier (a poll running while a change committed) never overwrites a later one.
   * Local order, not `updatedAt`: instances' clocks may disagree.
   */
  private readonly readOrder = new Map<string, number>();
  private sequence = 0;
  private readonly pending = new Map<string, Promise<unknown>>();
  private readonly refreshIntervalMs: number;
  private readonly negativeTtlMs: number;
  private readonly maxNegativeEntries: number;
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;
  private readonly broadcast: ((event: KeyChangeEvent) => Promise<void>) | null;
  private timer: NodeJS.Timeout | null = null;
  private lastRefresh: number;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    options: KeyCacheOptions = {},
  ) {
    this.refreshIntervalMs = options.refreshIntervalMs ?? 500;
    this.negativeTtlMs = options.negativeTtlMs ?? 1000;
    this.maxNegativeEntries = options.maxNegativeEntries ?? 100_000;
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => undefined);
    this.broadcast = options.broadcast ?? null;
    this.lastRefresh = this.now();
  }

  /** Synchronous hit, or undefined when the database must be asked. */
  peekApiKey(keyHash: string): CachedApiKey | null | undefined {
    const hit = this.apiKeys.get(keyHash);
    if (hit) return hit;
    return this.isKnownUnknown(keyHash) ? null : undefined;
  }

  async findApiKey(text: string): Promise<CachedApiKey | null> {
    const keyHash = hashKey(text);
    const cached = this.peekApiKey(keyHash);
    if (cached !== undefined) return cached;
    return this.once(`sk:${keyHash}`, async () => {
      const sequence = this.nextSequence();
      const row = await this.store.findApiKeyByHash(keyHash);
      if (!row) return this.rememberUnknown(keyHash);
      this.putApiKey(row, sequence);
      // The row may have been read before a rotation that this cache has already applied:
      // then the hash looked up is no longer one of the key's, and is refused.
      return this.apiKeys.get(keyHash) ?? null;
    });
  }

  async findUsageKey(text: string): Promise<CachedUsageKey | null> {
    const keyHash = hashKey(text);
    const hit = this.usageKeys.get(keyHash);
    if (hit) return hit;
    if (this.isKnownUnknown(keyHash)) return null;
    return this.once(`uk:${keyHash}`, async () => {
      const sequence = this.nextSequence();
      const row = await this.store.findUsageKeyByHash(keyHash);
      if (!row) return this.rememberUnknown(keyHash);
      return this.putUsageKey(row, sequence);
    });
  }

  /** Applies a changed key row (from this process or from polling). */
  putApiKey(row: ApiKeyRow, readSequence = this.nextSequence()): CachedApiKey {
    const stale = this.isStale(`sk:${row.id}`, readSequence);
    const hashes = this.apiKeyHashById.get(row.id) ?? [];
    const cached = hashes[0] === undefined ? undefined : this.apiKeys.get(hashes[0]);
    // A poll that read the row before a change committed must not undo it; REVOKED is final.
    if (cached && (stale || (cached.status === 'REVOKED' && row.status !== 'REVOKED'))) return cached;
    const entry: CachedApiKey = {
      id: row.id,
      accountId: row.accountId,
      name: row.name,
      status: row.status,
      blocked: row.blocked,
      rpm: row.rpm,
      tpm: row.tpm,
      models: row.models,
      accountModels: row.account.models,
      accountRpm: row.account.rpm,
      accountTpm: row.account.tpm,
      budget: row.budget,
      accountBudget: row.account.budget,
      expiresAt: row.expiresAt === null ? null : row.expiresAt.getTime(),
      graceEndsAt: null,
    };
    const next: Array<[string, CachedApiKey]> = [[row.keyHash, entry]];
    if (row.previousKeyHash !== null && row.previousKeyExpiresAt !== null) {
      next.push([row.previousKeyHash, { ...entry, graceEndsAt: row.previousKeyExpiresAt.getTime() }]);
    }
    // A rotation replaces the secret: the hashes the row no longer has stop working here at once.
    for (const hash of hashes) if (!next.some(([kept]) => kept === hash)) this.apiKeys.delete(hash);
    for (const [hash, value] of next) {
      this.unknown.delete(hash);
      this.apiKeys.set(hash, value);
    }
    this.apiKeyHashById.set(
      row.id,
      next.map(([hash]) => hash),
    );
    return entry;
  }

  /** Applies an account's new usage query key: the previous one stops working at once. */
  putUsageKey(row: UsageKeyRow, readSequence = this.nextSequence()): CachedUsageKey {
    // A stale read of an account's previous usage key must not bring it back.
    if (this.isStale(`uk:${row.accountId}`, readSequence))
      return this.usageKeys.get(row.keyHash) ?? { id: row.id, accountId: row.accountId };
    const previous = this.usageKeyHashByAccount.get(row.accountId);
    if (previous && previous !== row.keyHash) this.usageKeys.delete(previous);
    const entry: CachedUsageKey = { id: row.id, accountId: row.accountId };
    this.unknown.delete(row.keyHash);
    this.usageKeys.set(row.keyHash, entry);
    this.usageKeyHashByAccount.set(row.accountId, row.keyHash);
    return entry;
  }

  /** A key changed through this process: applied here at once, then announced to the others. */
  async apiKeyChanged(row: ApiKeyRow): Promise<CachedApiKey> {
    const entry = this.putApiKey(row);
    await this.announce({ kind: 'api-key', id: row.id });
    return entry;
  }

  /** An account's usage key was replaced through this process. */
  async usageKeyChanged(row: UsageKeyRow): Promise<CachedUsageKey> {
    const entry = this.putUsageKey(row);
    await this.announce({ kind: 'usage-key', accountId: row.accountId });
    return entry;
  }

  /**
   * Another instance (or the CLI) changed a key: reads it again if this cache holds it.
   * A key this instance never saw needs nothing: its first use reads the database.
   */
  async reload(event: KeyChangeEvent): Promise<void> {
    try {
      if (event.kind === 'api-key') {
        if (!this.apiKeyHashById.has(event.id)) return;
        const sequence = this.nextSequence();
        const row = await this.store.getApiKey(event.id);
        if (row) this.putApiKey(row, sequence);
        return;
      }
      if (!this.usageKeyHashByAccount.has(event.accountId)) return;
      const sequence = this.nextSequence();
      const row = await this.store.getUsageKeyByAccount(event.accountId);
      if (row) this.putUsageKey(row, sequence);
    } catch (error) {
      // The database is down: the polling backstop applies the change once it is back.
      this.onError(error);
    }
  }

  private async announce(event: KeyChangeEvent): Promise<void> {
    if (!this.broadcast) return;
    try {
      await this.broadcast(event);
    } catch (error) {
      // The change is committed; the other instances' polling picks it up within a second.
      this.onError(error);
    }
  }

  private nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  /** Whether a read numbered `readSequence` is older than what the cache holds; records it otherwise. */
  private isStale(entryKey: string, readSequence: number): boolean {
    const applied = this.readOrder.get(entryKey);
    if (applied !== undefined && readSequence < applied) return true;
    this.readOrder.set(entryKey, readSequence);
    return false;
  }

  /** Starts polling for changes made by other processes. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.refresh(), this.refreshIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One polling round; exposed for tests and for pub/sub nudges. */
  refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    this.refreshing = this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const startedAt = this.now();
    // Overlap the previous window: rows written in the same millisecond as the last poll,
    // or by a process whose clock is slightly behind, are still seen.
    const since = new Date(this.lastRefresh - 2000);
    const sequence = this.nextSequence();
    try {
      const [apiKeys, usageKeys] = await Promise.all([this.store.apiKeysChangedSince(since), this.store.usageKeysChangedSince(since)]);
      for (const row of apiKeys) this.putApiKey(row, sequence);
      for (const row of usageKeys) this.putUsageKey(row, sequence);
      this.lastRefresh = startedAt;
    } catch (error) {
      // The database is down: keep serving from the cache, try again next round.
      this.onError(error);
    }
  }

  private isKnownUnknown(keyHash: string): boolean {
    const until = this.unknown.get(keyHash);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.unknown.delete(keyHash);
    return false;
  }

  private rememberUnknown(keyHash: string): null {
    if (this.unknown.size >= this.maxNegativeEntries) {
      // Drop the oldest entry (Map keeps insertion order).
      const oldest = this.unknown.keys().next();
      if (!oldest.done) this.unknown.delete(oldest.value);
    }
    this.unknown.set(keyHash, this.now() + this.negativeTtlMs);
    return null;
  }

  /** Concurrent misses for the same key share one database read. */
  private once<T>(id: string, load: () => Promise<T>): Promise<T> {
    const running = this.pending.get(id) as Promise<T> | undefined;
    if (running) return running;
    const promise = load().finally(() => this.pending.delete(id));
    this.pending.set(id, promise);
    return promise;
  }
}
