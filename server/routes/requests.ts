import { initServer } from '@ts-rest/express';
import { contract } from '../../contract';
import type { Store } from '../db/types';
import { invalidRequest, notFound } from '../errors/gateway-error';
import { accountScope } from '../middleware/authorize-account';
import { getRequestDetail, listRequestPage } from '../request-log/list-requests';

const s = initServer();

/**
 * The request log's reading routes (docs/request-log.md), thin. An account owner's dashboard
 * session sees only its own account's records, whatever account it asks for; another
 * account's record is answered like one that does not exist.
 */
export function requestsRouter(dependencies: { store: Store; bodiesKeptFor: (accountId: string) => boolean }) {
  return s.router(contract.requests, {
    listRequests: async ({ query, res }) => {
      const page = await listRequestPage(dependencies.store, query, accountScope(res.locals.context.principal), dependencies.bodiesKeptFor);
      if (!page) throw invalidRequest('invalid_value', 'cursor is not a next_cursor this API gave.', 'cursor');
      return { status: 200, body: page };
    },
    getRequest: async ({ params, res }) => {
      const detail = await getRequestDetail(dependencies.store, params.requestId, accountScope(res.locals.context.principal));
      if (!detail) throw notFound('not_found', `No request ${JSON.stringify(params.requestId)} in the request log.`, 'requestId');
      return { status: 200, body: detail };
    },
  });
}
