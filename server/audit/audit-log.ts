import type { AuditEntry } from '../../contract';
import type { AuditEntryRow, Store } from '../db/types';
import { randomBase62 } from '../keys/key-text';

/**
 * Who makes a change (docs/operator-controls.md): the operator (admin token, operator session,
 * CLI) or an account owner (dashboard session of that account).
 */
export type Actor = { kind: 'operator' } | { kind: 'owner'; accountId: string };

export const OPERATOR: Actor = { kind: 'operator' };

export interface AuditContext {
  store: Store;
  now: () => number;
  /** Default: the operator. */
  actor?: Actor;
  requestId?: string | null;
}

export interface AuditedChange {
  action: string;
  accountId: string | null;
  targetId: string;
  /** Views as the admin API shows them: they never hold a secret. */
  before: object | null;
  after: object | null;
}

/**
 * Appends one entry to the audit log, after the change committed. Awaited: a change the log
 * could not record answers an error, so an operator retrying it gets both.
 */
export async function recordAudit(context: AuditContext, change: AuditedChange): Promise<void> {
  const at = context.now();
  await context.store.appendAudit({
    id: auditId(at),
    at: new Date(at),
    actor: (context.actor ?? OPERATOR).kind,
    accountId: change.accountId,
    action: change.action,
    targetId: change.targetId,
    before: change.before === null ? null : JSON.stringify(change.before),
    after: change.after === null ? null : JSON.stringify(change.after),
    requestId: context.requestId ?? null,
  });
}

/**
 * Ids that sort like the entries were made, so the log's order (time, then id) keeps the order
 * of two changes made in the same millisecond by one process: the time, a monotonic clock
 * reading, then random characters for uniqueness across processes.
 */
function auditId(at: number): string {
  const time = Math.max(0, at).toString(36).padStart(9, '0');
  const tick = (process.hrtime.bigint() % 1_000_000_000_000n).toString(36).padStart(8, '0');
  return `aud_${time}${tick}${randomBase62(8)}`;
}

export function toAuditView(row: AuditEntryRow): AuditEntry {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    account_id: row.accountId,
    action: row.action,
    target_id: row.targetId,
    before: parseObject(row.before),
    after: parseObject(row.after),
    request_id: row.requestId,
  };
}

/** The stored JSON of a view; a row that is not one reads as null rather than failing the page. */
function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A page cursor: the last entry's time and id, opaque to clients. */
export function encodeAuditCursor(row: Pick<AuditEntryRow, 'at' | 'id'>): string {
  return Buffer.from(`${row.at.toISOString()}|${row.id}`).toString('base64url');
}

export function decodeAuditCursor(cursor: string): { at: Date; id: string } | null {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (at === undefined || id === undefined || id === '') return null;
  const time = new Date(at);
  return Number.isNaN(time.getTime()) ? null : { at: time, id };
}

/** docs/operator-controls.md: newest first, `limit` a page; an owner's query is confined to its account. */
export async function listAudit(
  store: Store,
  query: { accountId?: string; limit: number; cursor?: string },
): Promise<{ object: 'list'; data: AuditEntry[]; next_cursor: string | null } | null> {
  const before = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor);
  if (before === null) return null;
  const rows = await store.listAudit({ accountId: query.accountId, limit: query.limit + 1, before });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return { object: 'list', data: page.map(toAuditView), next_cursor: rows.length > query.limit && last ? encodeAuditCursor(last) : null };
}
