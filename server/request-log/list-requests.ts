import type { z } from 'zod';
import type { RequestDetail, RequestLogPageSchema, RequestLogQuery } from '../../contract';
import type { Store } from '../db/types';
import { decodeRequestCursor, encodeRequestCursor, toRequestDetail, toRequestView } from './request-view';

export type RequestLogPage = z.output<typeof RequestLogPageSchema>;

/**
 * docs/request-log.md: a page of the request log, newest first, for the admin API and the CLI.
 * `onlyAccount` confines an owner to its account whatever `account_id` asks; null when the
 * cursor is not one this API gave. `bodiesKeptFor` tells whether an account's bodies are kept.
 */
export async function listRequestPage(
  store: Store,
  query: RequestLogQuery,
  onlyAccount: string | null,
  bodiesKeptFor: (accountId: string) => boolean,
): Promise<RequestLogPage | null> {
  const before = query.cursor === undefined ? undefined : decodeRequestCursor(query.cursor);
  if (before === null) return null;
  const rows = await store.listRequests({
    accountId: onlyAccount ?? query.account_id,
    keyId: query.key_id,
    model: query.model,
    status: query.status,
    errorCode: query.error_code,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
    limit: query.limit + 1,
    before,
  });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  const accountId = onlyAccount ?? query.account_id;
  return {
    object: 'list',
    data: page.map(toRequestView),
    next_cursor: rows.length > query.limit && last ? encodeRequestCursor(last) : null,
    account_bodies_kept: accountId === undefined ? null : bodiesKeptFor(accountId),
  };
}

/** One record with its bodies; null when there is none, or it is another account's than `onlyAccount`. */
export async function getRequestDetail(store: Store, id: string, onlyAccount: string | null): Promise<RequestDetail | null> {
  const row = await store.getRequest(id);
  if (!row || (onlyAccount !== null && row.accountId !== onlyAccount)) return null;
  return toRequestDetail(row);
}
